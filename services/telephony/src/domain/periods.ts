import { midnightIn, zoneOffsetMs } from '@voice/kit';
import type { OverviewQuery } from '@voice/proto';

const periodDays = { today: 1, '7d': 7, '30d': 30 } as const;

/**
 * The instant of midnight in `timeZone`, `daysBack` calendar days before the day `now` falls on there
 * (a daylight-saving change between `now` and that midnight accounted for).
 */
export function localMidnight(timeZone: string, now: Date, daysBack: number): Date {
  const wallNow = new Date(now.getTime() + zoneOffsetMs(timeZone, now));
  return midnightIn(timeZone, Date.UTC(wallNow.getUTCFullYear(), wallNow.getUTCMonth(), wallNow.getUTCDate() - daysBack));
}

/** The overview's period: explicit `from`/`to`, or today / the last 7 or 30 days (counting today) until now. */
export function resolvePeriod(query: OverviewQuery, now = new Date()): { from: Date; to: Date } {
  if (query.from) return { from: new Date(query.from), to: query.to ? new Date(query.to) : now };
  const days = periodDays[query.period ?? '30d'];
  return { from: localMidnight(query.time_zone, now, days - 1), to: now };
}
