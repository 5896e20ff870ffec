// What a page shows to crawlers, read from its HTML with small regular expressions: enough for an audit of
// the head of a page, without a DOM library.

export interface PageFindings {
  reachable: boolean;
  error: string | null;
  https: boolean;
  status: number | null;
  title: string | null;
  metaDescription: string | null;
  h1Count: number;
  lang: string | null;
  hasViewport: boolean;
  canonical: string | null;
  openGraph: { title: boolean; description: boolean; image: boolean };
  noindex: boolean;
  hasJsonLd: boolean;
  hasOrganizationJsonLd: boolean;
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1]?.toLowerCase() === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return entities[name.toLowerCase()] ?? whole;
  });
}

const clean = (text: string | undefined) => {
  if (text === undefined) return null;
  const value = decodeEntities(text.replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  return value === '' ? null : value;
};

/** The attributes of one tag, lowercased names: `<meta name="x" content="y">` → {name: 'x', content: 'y'}. */
function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g)) {
    const name = match[1]?.toLowerCase();
    if (name && !(name in found)) found[name] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return found;
}

function metaTags(html: string): Array<Record<string, string>> {
  return [...html.matchAll(/<meta\b[^>]*>/gi)].map((match) => attributes(match[0]));
}

export function readPage(html: string, meta: { url: string; status: number }): PageFindings {
  const metas = metaTags(html);
  const metaContent = (key: 'name' | 'property', value: string) =>
    clean(metas.find((tag) => tag[key]?.toLowerCase() === value)?.content) ?? null;
  const jsonLd = [...html.matchAll(/<script\b[^>]*type\s*=\s*["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script>/gi)].map(
    (match) => match[1] ?? '',
  );
  const links = [...html.matchAll(/<link\b[^>]*>/gi)].map((match) => attributes(match[0]));
  const htmlTag = /<html\b[^>]*>/i.exec(html)?.[0];
  const robots = `${metaContent('name', 'robots') ?? ''} ${metaContent('name', 'googlebot') ?? ''}`.toLowerCase();
  return {
    reachable: true,
    error: null,
    https: meta.url.startsWith('https:'),
    status: meta.status,
    title: clean(/<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]),
    metaDescription: metaContent('name', 'description'),
    h1Count: [...html.matchAll(/<h1\b/gi)].length,
    lang: htmlTag ? (attributes(htmlTag).lang ?? null) : null,
    hasViewport: metaContent('name', 'viewport') !== null,
    canonical: links.find((link) => link.rel?.toLowerCase() === 'canonical')?.href ?? null,
    openGraph: {
      title: metaContent('property', 'og:title') !== null,
      description: metaContent('property', 'og:description') !== null,
      image: metaContent('property', 'og:image') !== null,
    },
    noindex: /\bnoindex\b/.test(robots),
    hasJsonLd: jsonLd.length > 0,
    hasOrganizationJsonLd: jsonLd.some((text) =>
      /"@type"\s*:\s*(?:\[[^\]]*)?"(?:Organization|Corporation|LocalBusiness|Brand)"/.test(text),
    ),
  };
}

/** Findings for a page that could not be loaded: everything unknown, the reason kept. */
export function unreachablePage(url: string, error: string): PageFindings {
  return {
    reachable: false,
    error,
    https: url.startsWith('https:'),
    status: null,
    title: null,
    metaDescription: null,
    h1Count: 0,
    lang: null,
    hasViewport: false,
    canonical: null,
    openGraph: { title: false, description: false, image: false },
    noindex: false,
    hasJsonLd: false,
    hasOrganizationJsonLd: false,
  };
}
