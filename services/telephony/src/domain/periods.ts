import { localMidnight, zoneOffsetMs } from '@voice/kit';
import type { OverviewInterval, OverviewQuery } from '@voice/proto';

// The zone arithmetic is kit's, shared with the console (which cuts the same periods for its links).
export { localMidnight, zoneOffsetMs };

const periodDays = { today: 1, '7d': 7, '30d': 30 } as const;

/** The overview's period: explicit `from`/`to`, or today / the last 7 or 30 days (counting today) until now. */
export function resolvePeriod(query: OverviewQuery, now = new Date()): { from: Date; to: Date } {
  if (query.from) return { from: new Date(query.from), to: query.to ? new Date(query.to) : now };
  const days = periodDays[query.period ?? '30d'];
  return { from: localMidnight(query.time_zone, now, days - 1), to: now };
}

const hourMs = 60 * 60 * 1000;

/** The next start of an hour of `timeZone`'s wall clock after `instant` (at :30 UTC in Kolkata, :45 in Kathmandu). */
function nextLocalHour(timeZone: string, instant: Date): Date {
  const into = (time: number) => (((time + zoneOffsetMs(timeZone, new Date(time))) % hourMs) + hourMs) % hourMs;
  const next = instant.getTime() + hourMs - into(instant.getTime());
  // An offset that changed in between by a part of an hour (Lord Howe's half-hour summer time): once more.
  const corrected = next - into(next);
  return new Date(corrected > instant.getTime() ? corrected : next);
}

/** Longest period a series may cover, by step: 2 days of hours (50 h with a clock change), 92 days of days. */
export const seriesLimits = { hour: 50 * hourMs, day: 93 * 24 * hourMs } as const;

/**
 * Where each hour or calendar day of `timeZone` begins within [from, to): `from` first, then every local
 * hour start or midnight after it (daylight-saving days are 23 or 25 hours long, and a repeated hour stays
 * one hour of the clock).
 */
export function bucketStarts(from: Date, to: Date, interval: OverviewInterval, timeZone: string): Date[] {
  const starts = [from];
  for (;;) {
    const last = starts.at(-1) as Date;
    const next = interval === 'hour' ? nextLocalHour(timeZone, last) : localMidnight(timeZone, last, -1);
    // A midnight that does not exist (a zone that changes its clock at 00:00) may resolve to the same day's start.
    if (next <= last || next >= to) return starts;
    starts.push(next);
  }
}
