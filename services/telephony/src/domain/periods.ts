import type { OverviewQuery } from '@voice/proto';

const periodDays = { today: 1, '7d': 7, '30d': 30 } as const;

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in milliseconds (whole seconds). */
export function zoneOffsetMs(timeZone: string, instant: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The instant of midnight in `timeZone`, `daysBack` calendar days before the day `now` falls on there.
 * Corrected once for the offset at the result itself, so a daylight-saving change between `now` and that
 * midnight is accounted for.
 */
export function localMidnight(timeZone: string, now: Date, daysBack: number): Date {
  const wallNow = new Date(now.getTime() + zoneOffsetMs(timeZone, now));
  const wallMidnight = Date.UTC(wallNow.getUTCFullYear(), wallNow.getUTCMonth(), wallNow.getUTCDate() - daysBack);
  const guess = wallMidnight - zoneOffsetMs(timeZone, new Date(wallMidnight));
  return new Date(wallMidnight - zoneOffsetMs(timeZone, new Date(guess)));
}

/** The overview's period: explicit `from`/`to`, or today / the last 7 or 30 days (counting today) until now. */
export function resolvePeriod(query: OverviewQuery, now = new Date()): { from: Date; to: Date } {
  if (query.from) return { from: new Date(query.from), to: query.to ? new Date(query.to) : now };
  const days = periodDays[query.period ?? '30d'];
  return { from: localMidnight(query.time_zone, now, days - 1), to: now };
}
