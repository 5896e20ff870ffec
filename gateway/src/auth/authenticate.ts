import { ApiError } from '@voice/kit';
import { canonicalMcpPath, dailyRequestLimit, type Identity, isMcpPath, isTestOrg, scopeAllows } from '@voice/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../deps.js';
import { publicBaseUrl } from '../env.js';
import { accessTokenPrefix, hashKey, isWellFormedAccessToken, isWellFormedKey } from '../keys/format.js';
import { type KeyGrant, touchKey } from '../keys/store.js';
import type { GatewayMetrics } from '../metrics.js';
import type { Challenges } from '../oauth/metadata.js';
import { countRequest, keyEndKey, type QuotaDecision } from '../quota/quota.js';
import { requiredScope } from './scopes.js';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const secondsUntil = (date: Date, now: Date) => Math.max(1, Math.ceil((date.getTime() - now.getTime()) / 1000));

/** What a refusal says, by the kind of credential that was sent. */
const messages = {
  key: {
    unknown: 'This API key is not valid.',
    revoked: 'This API key was revoked or rotated; use its replacement.',
    scope: (needed: string, granted: string) => `This operation needs a ${needed} key; this key is ${granted}.`,
    quota: "This key's monthly quota is used up; it resets on the 1st (UTC).",
  },
  grant: {
    unknown: 'This access token is not valid.',
    revoked: 'This access token has expired, or its grant was revoked; refresh it, or sign in again.',
    scope: (needed: string, granted: string) => `This operation needs ${needed} access; this app was granted ${granted}.`,
    quota: "This app's monthly quota is used up; it resets on the 1st (UTC).",
  },
} as const;

function bearerKey(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * Authenticates and meters one API request, in the order API.md fixes: missing → unknown_key →
 * revoked → invalid_token (an access token off its resource) → forbidden_scope → quota. Sets
 * `request.identity` and the rate-limit headers. `path` is the URL's path, which the caller has already
 * taken out to decide that the route needs a key; `metrics` counts the quota decision.
 *
 * The credential is an API key or an OAuth access token (told apart by its prefix). A token answers for its
 * grant: the grant's id, scope, quota lineage and status, with the token's own expiry and resource. It is
 * accepted only on its resource's MCP URL (`/api/mcp` or one toolset or read-only URL, never the REST API),
 * and that resource rides in the identity, so the mcp service serves no more than it selects. Refusals
 * carry the RFC 6750 challenge naming the protected resource metadata.
 */
export async function authenticate(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  challenges: Challenges,
  metrics?: GatewayMetrics,
): Promise<void> {
  const key = bearerKey(request.headers.authorization);
  if (key === undefined) {
    throw new ApiError('missing', 'Send your API key, or an OAuth access token, as `Authorization: Bearer <key>`.', {
      headers: { 'www-authenticate': challenges.missing },
    });
  }
  const isToken = key.startsWith(accessTokenPrefix);
  const said = isToken ? messages.grant : messages.key;
  const invalidToken = { headers: { 'www-authenticate': challenges.invalidToken } };
  // The checksum rejects typos and made-up credentials before any lookup.
  if (!(isToken ? isWellFormedAccessToken(key) : isWellFormedKey(key))) throw new ApiError('unknown_key', said.unknown, invalidToken);
  const hash = hashKey(key);
  const cache = isToken ? deps.tokens : deps.keys;
  const grant: KeyGrant | null = cache.cached(hash) ?? (await cache.get(hash));
  if (!grant) throw new ApiError('unknown_key', said.unknown, invalidToken);
  const now = deps.now();
  // A token from before resources were kept has none: it is refused as ended, and its client refreshes it.
  if (grant.status === 'revoked' || (grant.expiresAt !== null && grant.expiresAt <= now) || (isToken && grant.resource === null)) {
    throw new ApiError('revoked', said.revoked, invalidToken);
  }
  // Revoked comes before every other refusal. A cached copy may be older than a revocation the broadcast did
  // not bring (its end marker is checked by the quota call, which a refused request never reaches), so a
  // refusal here first reads the marker: one Redis read, on refusals only.
  const refuse = async (refusal: ApiError): Promise<never> => {
    if (await endedInRedis(deps, request, grant, now)) {
      cache.invalidate({ hashes: [hash] });
      throw new ApiError('revoked', said.revoked, invalidToken);
    }
    throw refusal;
  };
  // An access token is for the one resource it was granted for (RFC 8707): its MCP URL, nowhere else.
  if (isToken && canonicalMcpPath(path) !== grant.resource) {
    const resource = `${publicBaseUrl(deps.env)}${grant.resource}`;
    await refuse(
      new ApiError(
        'invalid_token',
        isMcpPath(path)
          ? `This access token was issued for ${resource}, not for this URL: use it there, or sign in again for this one.`
          : `This access token was issued for the MCP server at ${resource}; the REST API takes API keys only.`,
        { headers: { 'www-authenticate': challenges.otherResource } },
      ),
    );
  }
  const needed = requiredScope(request.method, path);
  if (!scopeAllows(grant.scope, needed)) {
    await refuse(
      new ApiError('forbidden_scope', said.scope(needed, grant.scope), {
        headers: { 'www-authenticate': challenges.insufficientScope(needed) },
      }),
    );
  }

  let decision: QuotaDecision;
  try {
    // The connection fails fast while Redis is away and bounds every command by QUOTA_TIMEOUT_MS
    // (deps.ts), so a hung Redis is a 503 here, never a held request.
    decision = await countRequest(
      deps.redis,
      {
        prefix: deps.env.REDIS_PREFIX,
        orgId: grant.orgId,
        keyId: grant.id,
        lineageId: grant.lineageId,
        monthlyQuota: grant.monthlyQuota,
        dailyLimit: dailyRequestLimit(grant.orgId, grant.plan),
        now,
      },
      deps.countedRequests,
    );
  } catch (error) {
    metrics?.quotaUnavailable();
    request.log.error({ err: error }, 'quota check failed');
    throw new ApiError('unavailable', 'Usage metering is unavailable; retry shortly.', { headers: { 'retry-after': '1' } });
  }

  metrics?.quotaDecided(decision.verdict);

  // Revoked or past its rotation grace by the marker the admin command wrote: this replica's cached copy
  // of the key is stale, whether or not the NATS broadcast reached it.
  if (decision.verdict === 'revoked') {
    cache.invalidate({ hashes: [hash] });
    throw new ApiError('revoked', said.revoked, invalidToken);
  }
  const remaining = Math.max(0, grant.monthlyQuota - decision.monthlyUsed);
  void reply.headers({
    'x-ratelimit-limit': String(grant.monthlyQuota),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(unixSeconds(decision.monthlyResetsAt)),
  });
  if (decision.verdict === 'quota_exceeded') {
    throw new ApiError('quota_exceeded', said.quota, {
      headers: { 'retry-after': String(secondsUntil(decision.monthlyResetsAt, now)) },
    });
  }
  if (decision.verdict === 'rate_limited') {
    void reply.header('x-ratelimit-reset', String(unixSeconds(decision.dailyResetsAt)));
    const whose = isTestOrg(grant.orgId) ? 'Test mode' : `The ${grant.plan} plan`;
    throw new ApiError('rate_limited', `${whose}'s daily request limit is reached; it resets at 00:00 UTC.`, {
      headers: { 'retry-after': String(secondsUntil(decision.dailyResetsAt, now)) },
    });
  }

  const identity: Identity = {
    org_id: grant.orgId,
    key_id: grant.id,
    scope: grant.scope,
    plan: grant.plan,
    request_id: request.id,
    monthly_used: decision.monthlyUsed,
    monthly_quota: grant.monthlyQuota,
    ...(grant.ownerUserId ? { owner_user_id: grant.ownerUserId } : {}),
    ...(grant.resource ? { resource: grant.resource } : {}),
  };
  request.identity = identity;
  recordUse(deps, grant.id, now);
}

/** Whether the key's (or grant's) end marker in Redis says it has ended; Redis away is a 503, as for the quota call. */
async function endedInRedis(deps: GatewayDeps, request: FastifyRequest, grant: KeyGrant, now: Date): Promise<boolean> {
  let endsAt: string | null;
  try {
    endsAt = await deps.redis.get(keyEndKey(deps.env.REDIS_PREFIX, grant.orgId, grant.id));
  } catch (error) {
    request.log.error({ err: error }, 'revocation check failed');
    throw new ApiError('unavailable', 'Usage metering is unavailable; retry shortly.', { headers: { 'retry-after': '1' } });
  }
  return endsAt !== null && Number(endsAt) <= now.getTime();
}

/** When each key was last marked used in this process: `last_used_at` is written at most once a minute. */
const lastMarked = new Map<string, number>();

function recordUse(deps: GatewayDeps, keyId: string, now: Date): void {
  const previous = lastMarked.get(keyId);
  if (previous !== undefined && now.getTime() - previous < 60_000) return;
  if (lastMarked.size > 100_000) lastMarked.clear();
  lastMarked.set(keyId, now.getTime());
  touchKey(deps.prisma, keyId, now).catch((error: unknown) => deps.logger.warn({ err: error, key_id: keyId }, 'last_used_at not recorded'));
}
