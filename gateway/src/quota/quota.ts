import { defineLuaCommand } from '@voice/kit';
import type { ClientContext, Redis, Result } from 'ioredis';

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    countRequest(
      monthlyKey: string,
      dailyKey: string,
      keyEndKey: string,
      monthlyQuota: number,
      dailyLimit: number,
      nowMs: number,
    ): Result<[number, number, number], Context>;
  }
}

/** The quota script (lua/quota-2.lua, from src/quota and dist/quota alike) as `redis.countRequest`. */
export function defineQuotaCommand(redis: Redis): void {
  defineLuaCommand(redis, 'countRequest', new URL('../../lua/quota-2.lua', import.meta.url), 3);
}

export type QuotaVerdict = 'allowed' | 'quota_exceeded' | 'rate_limited' | 'revoked';

export interface QuotaDecision {
  verdict: QuotaVerdict;
  monthlyUsed: number;
  dailyUsed: number;
  monthlyResetsAt: Date;
  dailyResetsAt: Date;
}

/** The UTC calendar periods a moment falls in, and when each ends. */
export function periodsAt(now: Date): Periods {
  // The same for a whole day: made once a day, not on every request.
  const ms = now.getTime();
  if (lastPeriods && ms >= lastPeriods.dayStart.getTime() && ms < lastPeriods.dayEnd.getTime()) return lastPeriods;
  lastPeriods = computePeriods(now);
  return lastPeriods;
}

type Periods = ReturnType<typeof computePeriods>;
let lastPeriods: Periods | undefined;

function computePeriods(now: Date) {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = now.getUTCDate();
  const pad = (value: number) => String(value).padStart(2, '0');
  return {
    monthLabel: `${year}${pad(month + 1)}`,
    dayLabel: `${year}${pad(month + 1)}${pad(day)}`,
    monthStart: new Date(Date.UTC(year, month, 1)),
    dayStart: new Date(Date.UTC(year, month, day)),
    monthEnd: new Date(Date.UTC(year, month + 1, 1)),
    dayEnd: new Date(Date.UTC(year, month, day + 1)),
  };
}

export function quotaKeys(prefix: string, orgId: string, lineageId: string, now: Date) {
  const periods = periodsAt(now);
  return {
    monthly: `${prefix}q:{${orgId}}:m:${lineageId}:${periods.monthLabel}`,
    daily: `${prefix}q:{${orgId}}:d:${periods.dayLabel}`,
    ...periods,
  };
}

/** Counters and key end markers are kept a day past their period, for late readers of the usage. */
const keepAfterPeriodSeconds = 24 * 60 * 60;

/**
 * Where the moment a key stops working is written (revocation, end of a rotation's grace), for the quota
 * script to check on every request: every replica refuses the key from then on, whatever its key cache
 * holds and whether or not the NATS broadcast reached it.
 */
export function keyEndKey(prefix: string, orgId: string, keyId: string): string {
  return `${prefix}q:{${orgId}}:end:${keyId}`;
}

/**
 * The marker outlives the key's end by a day: longer than any key cache entry (KEY_CACHE_TTL_MS), after
 * which every replica has read the key's state from Postgres again. Lost with Redis's data, the same
 * cache TTL bounds how long a replica can still accept the key.
 */
export async function recordKeyEnd(redis: Redis, input: { prefix: string; orgId: string; keyId: string; endsAt: Date; now: Date }) {
  const keepMs = Math.max(0, input.endsAt.getTime() - input.now.getTime()) + keepAfterPeriodSeconds * 1000;
  await redis.set(keyEndKey(input.prefix, input.orgId, input.keyId), String(input.endsAt.getTime()), 'PX', keepMs);
}

const verdicts: QuotaVerdict[] = ['allowed', 'quota_exceeded', 'rate_limited', 'revoked'];
const missingCounter = 4;

/** The durable record of requests already counted in a period, to rebuild a counter Redis does not have. */
export interface CountedRequests {
  ofLineage(orgId: string, lineageId: string, from: Date, to: Date): Promise<number>;
  ofOrganization(orgId: string, from: Date, to: Date): Promise<number>;
}

export interface CountRequestInput {
  prefix: string;
  orgId: string;
  keyId: string;
  lineageId: string;
  monthlyQuota: number;
  dailyLimit: number | null;
  now: Date;
}

/**
 * Seedings of this process by counter key, kept briefly: the requests of a burst that all found the
 * counter missing share one Postgres query instead of queueing one each. A counter still missing after
 * a shared seeding (Redis lost it since) is seeded again.
 */
const seedings = new Map<string, { done: Promise<unknown>; atMs: number }>();
const seedingReuseMs = 10_000;

/** Creates a missing counter (SET NX, so a concurrent seeding or count is never overwritten) from `count`. */
function seedCounter(redis: Redis, key: string, end: Date, now: Date, count: () => Promise<number>, reuse: boolean) {
  const recent = seedings.get(key);
  if (reuse && recent && Date.now() - recent.atMs < seedingReuseMs) return recent.done;
  if (seedings.size >= 100_000) seedings.clear();
  const ttlSeconds = Math.ceil((end.getTime() - now.getTime()) / 1000) + keepAfterPeriodSeconds;
  const done = count().then((used) => redis.set(key, used, 'EX', ttlSeconds, 'NX'));
  // A failed seeding is not remembered: the next request tries again.
  done.catch(() => seedings.delete(key));
  seedings.set(key, { done, atMs: Date.now() });
  return done;
}

/**
 * One Redis round trip in the normal case: check the key's end, both limits and, only if all allow it,
 * count the request. A counter Redis does not have (the first request of a period, or Redis lost its
 * data) is first seeded from the requests Postgres recorded in that period, then the call is made again.
 */
export async function countRequest(redis: Redis, input: CountRequestInput, counted: CountedRequests): Promise<QuotaDecision> {
  const keys = quotaKeys(input.prefix, input.orgId, input.lineageId, input.now);
  const call = () =>
    redis.countRequest(
      keys.monthly,
      keys.daily,
      keyEndKey(input.prefix, input.orgId, input.keyId),
      input.monthlyQuota,
      input.dailyLimit ?? -1,
      input.now.getTime(),
    );
  let [verdict, monthlyUsed, dailyUsed] = await call();
  for (let seedings = 0; verdict === missingCounter && seedings < 2; seedings++) {
    const reuse = seedings === 0;
    await Promise.all([
      monthlyUsed === 1 &&
        seedCounter(
          redis,
          keys.monthly,
          keys.monthEnd,
          input.now,
          () => counted.ofLineage(input.orgId, input.lineageId, keys.monthStart, keys.monthEnd),
          reuse,
        ),
      dailyUsed === 1 &&
        seedCounter(
          redis,
          keys.daily,
          keys.dayEnd,
          input.now,
          () => counted.ofOrganization(input.orgId, keys.dayStart, keys.dayEnd),
          reuse,
        ),
    ]);
    [verdict, monthlyUsed, dailyUsed] = await call();
  }
  const decided = verdicts[verdict];
  // Never let an unexpected script answer through as "allowed": that would be an unmetered pass.
  if (!decided) throw new Error(`quota script returned verdict ${verdict}`);
  return {
    verdict: decided,
    monthlyUsed,
    dailyUsed,
    monthlyResetsAt: keys.monthEnd,
    dailyResetsAt: keys.dayEnd,
  };
}

/** Current counts without counting, for `GET /api/v1/usage`. */
export async function readUsage(redis: Redis, input: Omit<CountRequestInput, 'keyId' | 'monthlyQuota' | 'dailyLimit'>) {
  const keys = quotaKeys(input.prefix, input.orgId, input.lineageId, input.now);
  const [monthly, daily] = await redis.mget(keys.monthly, keys.daily);
  return {
    monthlyUsed: Number(monthly ?? 0),
    dailyUsed: Number(daily ?? 0),
    monthlyResetsAt: keys.monthEnd,
    dailyResetsAt: keys.dayEnd,
  };
}
