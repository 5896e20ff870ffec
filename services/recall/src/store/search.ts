import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

const { sql, join } = Prisma;

/** Our tables in raw SQL: the Prisma client qualifies them with the adapter's schema, raw SQL must too. */
const passages = sql`"recall"."passages"`;
const documents = sql`"recall"."documents"`;

export interface PassageHit {
  passageId: string;
  documentId: string;
  title: string;
  sourceUrl: string | null;
  content: string;
  snippet: string;
  score: number;
}

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The snippet as safe HTML: the passage text escaped (documents may contain markup), then the matches
 * ts_headline marked with control characters wrapped in <b>…</b>.
 */
export function highlight(marked: string): string {
  return marked
    .replace(/[&<>"']/g, (char) => htmlEscapes[char] ?? char)
    .replaceAll('\u0002', '<b>')
    .replaceAll('\u0003', '</b>');
}

/** Query words as the user typed them, lowercased and deduplicated; at most 32. */
export function queryWords(query: string): string[] {
  const words = query
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && word.length <= 64);
  return [...new Set(words)].slice(0, 32);
}

/** Words long enough to be worth matching by trigrams, for misspellings; at most 8. */
export function fuzzyWords(words: readonly string[]): string[] {
  return words.filter((word) => word.length >= 4).slice(0, 8);
}

/**
 * Full-text recall over one organization's passages.
 *
 * - Each query word becomes its own `plainto_tsquery('english', word)` and they are OR-ed, so a question
 *   matches a passage sharing any meaningful word (stop words drop out), while `ts_rank_cd` (cover
 *   density, over the weighted vector: title A, text B) still ranks passages with more of the words first.
 * - Words of four letters or more also match by trigram similarity (`content %> word`, pg_trgm's
 *   word_similarity), which catches misspellings the stemmer cannot. pg_trgm lives in schema public, which
 *   is not on this connection's search path, hence the qualified names.
 * - score = 0.7 × ts_rank_cd (normalised to 0..1) + 0.3 × the share of words found, by similarity.
 */
export async function searchPassages(prisma: PrismaClient, orgId: string, query: string, limit: number): Promise<PassageHit[]> {
  const words = queryWords(query);
  if (words.length === 0) return [];
  const tsquery = join(
    words.map((word) => sql`plainto_tsquery('english', ${word}::text)`),
    ' || ',
  );
  const fuzzy = fuzzyWords(words);
  const fuzzyMatch =
    fuzzy.length === 0
      ? sql`false`
      : join(
          fuzzy.map((word) => sql`p.content OPERATOR(public.%>) ${word}::text`),
          ' OR ',
        );
  const coverage =
    fuzzy.length === 0
      ? sql`0::float8`
      : sql`(SELECT avg(CASE WHEN s >= 0.6 THEN s ELSE 0 END) FROM unnest(ARRAY[${join(
          fuzzy.map((word) => sql`public.word_similarity(${word}::text, p.content)`),
          ', ',
        )}]::float8[]) AS s)`;
  const rows = await prisma.$queryRaw<
    Array<{
      passage_id: string;
      document_id: string;
      title: string;
      source_url: string | null;
      content: string;
      snippet: string;
      score: number;
    }>
  >`
    WITH q AS (SELECT (${tsquery}) AS query)
    SELECT p.id AS passage_id, p.document_id, d.title, d.source_url, p.content,
           ts_headline('english', p.content, q.query,
             'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MinWords=12, MaxWords=40, MaxFragments=2, FragmentDelimiter=" … "') AS snippet,
           (0.7 * CASE WHEN numnode(q.query) > 0 THEN ts_rank_cd(p.search, q.query, 32) ELSE 0 END
            + 0.3 * ${coverage})::float8 AS score
    FROM ${passages} p
    JOIN ${documents} d ON d.id = p.document_id AND d.org_id = p.org_id
    CROSS JOIN q
    WHERE p.org_id = ${orgId}
      AND ((numnode(q.query) > 0 AND p.search @@ q.query) OR ${fuzzyMatch})
    ORDER BY score DESC, p.id
    LIMIT ${limit}
  `;
  return rows.map((row) => ({
    passageId: row.passage_id,
    documentId: row.document_id,
    title: row.title,
    sourceUrl: row.source_url,
    content: row.content,
    snippet: highlight(row.snippet),
    score: Math.round(Number(row.score) * 10_000) / 10_000,
  }));
}
