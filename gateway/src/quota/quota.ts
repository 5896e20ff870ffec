import { readFileSync } from 'node:fs';
import type { ClientContext, Redis, Result } from 'ioredis';

const quotaScript = readFileSync(new URL('./quota-2.lua', import.meta.url), 'utf8');

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    countRequest(
      monthlyKey: string,
      dailyKey: string,
      monthlyQuota: number,
      dailyLimit: number,
      monthlyTtlSeconds: number,
      dailyTtlSeconds: number,
    ): Result<[number, number, number], Context>;
  }
}

/** Loads the Lua script once per connection; ioredis runs it by SHA and reloads it after a Redis restart. */
export function defineQuotaCommand(redis: Redis): void {
  redis.defineCommand('countRequest', { numberOfKeys: 2, lua: quotaScript });
}

export type QuotaVerdict = 'allowed' | 'quota_exceeded' | 'rate_limited';

export interface QuotaDecision {
  verdict: QuotaVerdict;
  monthlyUsed: number;
  dailyUsed: number;
  monthlyResetsAt: Date;
  dailyResetsAt: Date;
}

/** The UTC calendar periods a moment falls in, and when each ends. */
export function periodsAt(now: Date) {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = now.getUTCDate();
  const pad = (value: number) => String(value).padStart(2, '0');
  return {
    monthLabel: `${year}${pad(month + 1)}`,
    dayLabel: `${year}${pad(month + 1)}${pad(day)}`,
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

const verdicts: QuotaVerdict[] = ['allowed', 'quota_exceeded', 'rate_limited'];
const keepAfterPeriodSeconds = 24 * 60 * 60;

export interface CountRequestInput {
  prefix: string;
  orgId: string;
  lineageId: string;
  monthlyQuota: number;
  dailyLimit: number | null;
  now: Date;
}

/** One Redis round trip: check both limits and, only if both allow it, count the request. */
export async function countRequest(redis: Redis, input: CountRequestInput): Promise<QuotaDecision> {
  const keys = quotaKeys(input.prefix, input.orgId, input.lineageId, input.now);
  const secondsUntil = (end: Date) => Math.ceil((end.getTime() - input.now.getTime()) / 1000);
  const [verdict, monthlyUsed, dailyUsed] = await redis.countRequest(
    keys.monthly,
    keys.daily,
    input.monthlyQuota,
    input.dailyLimit ?? -1,
    secondsUntil(keys.monthEnd) + keepAfterPeriodSeconds,
    secondsUntil(keys.dayEnd) + keepAfterPeriodSeconds,
  );
  const decided = verdicts[verdict];
  // Never let an unexpected script answer through as "allowed": that would be an unmetered pass.
  if (!decided) throw new Error(`quota script returned an unknown verdict ${verdict}`);
  return {
    verdict: decided,
    monthlyUsed,
    dailyUsed,
    monthlyResetsAt: keys.monthEnd,
    dailyResetsAt: keys.dayEnd,
  };
}

/** Current counts without counting, for `GET /api/v1/usage`. */
export async function readUsage(redis: Redis, input: Omit<CountRequestInput, 'monthlyQuota' | 'dailyLimit'>) {
  const keys = quotaKeys(input.prefix, input.orgId, input.lineageId, input.now);
  const [monthly, daily] = await redis.mget(keys.monthly, keys.daily);
  return {
    monthlyUsed: Number(monthly ?? 0),
    dailyUsed: Number(daily ?? 0),
    monthlyResetsAt: keys.monthEnd,
    dailyResetsAt: keys.dayEnd,
  };
}
