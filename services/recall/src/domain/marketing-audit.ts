import { createHash } from 'node:crypto';
import { ApiError, type Logger } from '@voice/kit';
import type { MarketingAudit, RecommendationSeverity } from '@voice/proto';
import type { Redis } from 'ioredis';
import { type PageFindings, readPage, unreachablePage } from './html.js';
import { checkTarget, type FetchedPage, fetchPage, PageFetchError, type PageFetchOptions } from './page-fetch.js';

export const marketingAuditNotice = 'This is the free public audit. An API-key version with brand scoring across models is coming soon.';

const weights: Record<RecommendationSeverity, number> = { critical: 4, high: 3, medium: 2, low: 1 };

interface Check {
  id: string;
  passed: boolean;
  severity: RecommendationSeverity;
  message: string;
}

/** The audit's checks, in a fixed order; each says what passed or what to fix. */
export function marketingAuditChecks(page: PageFindings, fetched: { status: number; elapsedMs: number; truncated: boolean }): Check[] {
  const check = (id: string, passed: boolean, severity: RecommendationSeverity, ok: string, fix: string): Check => ({
    id,
    passed,
    severity,
    message: passed ? ok : fix,
  });
  const titleLength = page.title?.length ?? 0;
  const descriptionLength = page.metaDescription?.length ?? 0;
  return [
    check(
      'status',
      fetched.status >= 200 && fetched.status < 300,
      'critical',
      `The page answers ${fetched.status}.`,
      `The page answers ${fetched.status}; crawlers skip pages that do not answer 2xx.`,
    ),
    check('indexable', !page.noindex, 'critical', 'The page may be indexed.', 'The page tells robots not to index it (noindex).'),
    check('https', page.https, 'high', 'Served over HTTPS.', 'Serve the page over HTTPS.'),
    check(
      'title',
      titleLength >= 10 && titleLength <= 70,
      'high',
      'The title has a good length.',
      page.title ? `The title is ${titleLength} characters; aim for 10 to 70.` : 'Add a <title>.',
    ),
    check(
      'meta_description',
      descriptionLength >= 50 && descriptionLength <= 160,
      'medium',
      'The meta description has a good length.',
      page.metaDescription
        ? `The meta description is ${descriptionLength} characters; aim for 50 to 160.`
        : 'Add a meta description that says what you do and for whom.',
    ),
    check(
      'h1',
      page.h1Count === 1,
      'medium',
      'One <h1> heading.',
      page.h1Count === 0 ? 'Add one <h1> that names your offer.' : `Use one <h1>, not ${page.h1Count}.`,
    ),
    check('viewport', page.hasViewport, 'medium', 'Mobile viewport set.', 'Add <meta name="viewport"> so the page renders on phones.'),
    check(
      'speed',
      fetched.elapsedMs <= 2_000,
      'medium',
      `Loaded in ${fetched.elapsedMs} ms.`,
      `Took ${fetched.elapsedMs} ms to load; aim for under 2 s.`,
    ),
    check('size', !fetched.truncated, 'low', 'The HTML is a reasonable size.', 'The HTML is larger than we read (over 1 MB); trim it.'),
    check(
      'open_graph',
      page.openGraph.title && page.openGraph.image,
      'low',
      'Open Graph title and image set.',
      'Add og:title and og:image so shares and previews look right.',
    ),
    check('canonical', page.canonical !== null, 'low', 'Canonical URL set.', 'Add <link rel="canonical"> to name the page’s one URL.'),
    check('lang', page.lang !== null, 'low', `Language declared (${page.lang ?? ''}).`, 'Declare the language: <html lang="en">.'),
    check(
      'structured_data',
      page.hasOrganizationJsonLd,
      'low',
      'Organization structured data found.',
      'Add schema.org Organization JSON-LD so machines tie your name, site and profiles together.',
    ),
  ];
}

/** 0-100: the weighted share of checks passed (critical 4, high 3, medium 2, low 1). */
export function marketingAuditScore(checks: readonly Check[]): number {
  const total = checks.reduce((sum, check) => sum + weights[check.severity], 0);
  const passed = checks.reduce((sum, check) => sum + (check.passed ? weights[check.severity] : 0), 0);
  return total === 0 ? 0 : Math.round((100 * passed) / total);
}

/**
 * Fetches the page (SSRF-guarded, bounded) and audits it. Its callers are anonymous, so they learn only what
 * they sent: a URL that is malformed, of another scheme, or names a private address literally is 400 with
 * the reason; anything learned by trying (what a name resolves to, whether it resolves, a connection's
 * error) is one generic 502, the same for a name that points inside our network as for one that does not
 * exist, and the details go to the log.
 */
export async function runMarketingAudit(
  url: string,
  fetchOptions: PageFetchOptions,
  logger: Pick<Logger, 'info'>,
): Promise<MarketingAudit> {
  try {
    checkTarget(url, fetchOptions.isAllowedAddress);
  } catch (error) {
    if (error instanceof PageFetchError)
      throw new ApiError('invalid_request', `This URL cannot be audited: ${error.message}.`, { param: 'url' });
    throw error;
  }
  let fetched: FetchedPage;
  try {
    fetched = await fetchPage(url, fetchOptions);
  } catch (error) {
    logger.info({ err: error, url, reason: (error as PageFetchError).reason }, 'public audit could not load the page');
    throw new ApiError('upstream_failed', 'We could not load this page to audit it.', { param: 'url' });
  }
  const page = readPage(fetched.body, { url: fetched.finalUrl, status: fetched.status });
  const checks = marketingAuditChecks(page, fetched);
  return {
    ok: true,
    url,
    final_url: fetched.finalUrl,
    status: fetched.status,
    score: marketingAuditScore(checks),
    checks,
    fetched_in_ms: fetched.elapsedMs,
    checked_at: new Date().toISOString(),
    notice: marketingAuditNotice,
  };
}

/** The brand page as findings for the brand score; failures are findings too (never throws). */
export async function readBrandPage(url: string, fetchOptions: PageFetchOptions): Promise<PageFindings> {
  try {
    const fetched = await fetchPage(url, fetchOptions);
    if (fetched.status < 200 || fetched.status >= 300) return unreachablePage(fetched.finalUrl, `it answered ${fetched.status}`);
    return readPage(fetched.body, { url: fetched.finalUrl, status: fetched.status });
  } catch (error) {
    return unreachablePage(url, (error as Error).message);
  }
}

export interface MarketingAuditCache {
  redis: Redis;
  prefix: string;
  ttlSeconds: number;
}

/**
 * The audit, reused for `ttlSeconds` per URL: many visitors auditing one site cost it one fetch, so the
 * public endpoint cannot be used to hammer a third party. A cache outage only means fetching again.
 */
export async function cachedMarketingAudit(
  url: string,
  fetchOptions: PageFetchOptions,
  cache: MarketingAuditCache,
  logger: Pick<Logger, 'info'>,
): Promise<MarketingAudit> {
  const key = `${cache.prefix}audit:page:${createHash('sha256').update(url).digest('base64url')}`;
  const stored = await cache.redis.get(key).catch(() => null);
  if (stored !== null) return JSON.parse(stored) as MarketingAudit;
  const audit = await runMarketingAudit(url, fetchOptions, logger);
  await cache.redis.set(key, JSON.stringify(audit), 'EX', cache.ttlSeconds).catch(() => undefined);
  return audit;
}
