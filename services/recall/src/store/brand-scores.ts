import { afterPosition, decodeCursor, keysetOrder, newId, toPage } from '@voice/kit';
import type { BrandScoreRecord, BrandVerdict, ListBrandScoresQuery } from '@voice/proto';
import type { BrandScore as BrandScoreRow, Prisma, PrismaClient } from '../generated/prisma/client.js';

const toRecord = (row: BrandScoreRow): BrandScoreRecord => ({
  id: row.id,
  object: 'brand_score',
  brand: row.brand,
  url: row.url,
  score: row.score,
  verdict: row.verdict as BrandVerdict,
  partial: row.partial,
  created_at: row.createdAt.toISOString(),
});

/** Keeps one score of the organization (in the caller's transaction, with its event). */
export async function recordBrandScore(
  tx: Prisma.TransactionClient,
  orgId: string,
  score: Pick<BrandScoreRecord, 'brand' | 'url' | 'score' | 'verdict' | 'partial'>,
): Promise<void> {
  await tx.brandScore.create({ data: { id: newId('brandScore'), orgId, ...score } });
}

/** The organization's scores, newest first, a page at a time (keyset on (org, created_at, id)). */
export async function listBrandScores(prisma: PrismaClient, orgId: string, query: ListBrandScoresQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.brandScore.findMany({ where: { orgId, ...afterPosition(position) }, orderBy: keysetOrder, take: limit + 1 });
  return toPage(rows, limit, filters, toRecord);
}
