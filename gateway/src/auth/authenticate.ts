import { ApiError } from '@voice/kit';
import { type Identity, planLimits, scopeAllows } from '@voice/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../deps.js';
import { hashKey, isWellFormedKey } from '../keys/format.js';
import { touchKey } from '../keys/store.js';
import { countRequest, type QuotaDecision } from '../quota/quota.js';
import { requiredScope } from './scopes.js';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const secondsUntil = (date: Date, now: Date) => Math.max(1, Math.ceil((date.getTime() - now.getTime()) / 1000));

const revokedMessage = 'This API key was revoked or rotated; use its replacement.';

function bearerKey(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * Authenticates and meters one API request, in the order API.md fixes: missing → unknown_key →
 * revoked → forbidden_scope → quota. Sets `request.identity` and the rate-limit headers. `path` is the
 * URL's path, which the caller has already taken out to decide that the route needs a key.
 */
export async function authenticate(deps: GatewayDeps, request: FastifyRequest, reply: FastifyReply, path: string): Promise<void> {
  const key = bearerKey(request.headers.authorization);
  if (key === undefined) throw new ApiError('missing', 'Send your API key as `Authorization: Bearer <key>`.');
  // The checksum rejects typos and made-up keys before any lookup.
  if (!isWellFormedKey(key)) throw new ApiError('unknown_key', 'This API key is not valid.');
  const hash = hashKey(key);
  const grant = deps.keys.cached(hash) ?? (await deps.keys.get(hash));
  if (!grant) throw new ApiError('unknown_key', 'This API key is not valid.');
  const now = deps.now();
  if (grant.status === 'revoked' || (grant.expiresAt !== null && grant.expiresAt <= now)) {
    throw new ApiError('revoked', revokedMessage);
  }
  const needed = requiredScope(request.method, path);
  if (!scopeAllows(grant.scope, needed)) {
    throw new ApiError('forbidden_scope', `This operation needs a ${needed} key; this key is ${grant.scope}.`);
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
        dailyLimit: planLimits[grant.plan].dailyRequests,
        now,
      },
      deps.countedRequests,
    );
  } catch (error) {
    request.log.error({ err: error }, 'quota check failed');
    throw new ApiError('unavailable', 'Usage metering is unavailable; retry shortly.', { headers: { 'retry-after': '1' } });
  }

  // Revoked or past its rotation grace by the marker the admin command wrote: this replica's cached copy
  // of the key is stale, whether or not the NATS broadcast reached it.
  if (decision.verdict === 'revoked') {
    deps.keys.invalidate({ hashes: [hash] });
    throw new ApiError('revoked', revokedMessage);
  }
  const remaining = Math.max(0, grant.monthlyQuota - decision.monthlyUsed);
  void reply.headers({
    'x-ratelimit-limit': String(grant.monthlyQuota),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(unixSeconds(decision.monthlyResetsAt)),
  });
  if (decision.verdict === 'quota_exceeded') {
    throw new ApiError('quota_exceeded', "This key's monthly quota is used up; it resets on the 1st (UTC).", {
      headers: { 'retry-after': String(secondsUntil(decision.monthlyResetsAt, now)) },
    });
  }
  if (decision.verdict === 'rate_limited') {
    void reply.header('x-ratelimit-reset', String(unixSeconds(decision.dailyResetsAt)));
    throw new ApiError('rate_limited', `The ${grant.plan} plan's daily request limit is reached; it resets at 00:00 UTC.`, {
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
  };
  request.identity = identity;
  recordUse(deps, grant.id, now);
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
