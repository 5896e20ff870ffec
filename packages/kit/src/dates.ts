/** A nullable timestamp as records carry it: ISO 8601 in UTC with milliseconds, or null. */
export function isoOrNull(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

// Calendar days of a person's time zone: the console's overview and telephony's roll-ups cut periods the same way.

/** Intl formatters cost far more to build than to use: one per zone (a few hundred zones exist). */
const wallClocks = new Map<string, Intl.DateTimeFormat>();

function wallClock(timeZone: string): Intl.DateTimeFormat {
  let clock = wallClocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (wallClocks.size >= 1000) wallClocks.clear();
    wallClocks.set(timeZone, clock);
  }
  return clock;
}

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in milliseconds (whole seconds). */
export function zoneOffsetMs(timeZone: string, instant: Date): number {
  const parts = wallClock(timeZone).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The instant a day begins in a time zone, given that day's midnight written as if it were UTC (e.g.
 * `Date.UTC(2026, 10, 27)`). Corrected once for the offset at the result itself, so a daylight-saving
 * change between the two is accounted for.
 */
export function midnightIn(timeZone: string, wallMidnightMs: number): Date {
  const guess = wallMidnightMs - zoneOffsetMs(timeZone, new Date(wallMidnightMs));
  return new Date(wallMidnightMs - zoneOffsetMs(timeZone, new Date(guess)));
}

/** The instant of midnight in `timeZone`, `daysBack` calendar days before the day `now` falls on there. */
export function localMidnight(timeZone: string, now: Date, daysBack: number): Date {
  const wallNow = new Date(now.getTime() + zoneOffsetMs(timeZone, now));
  return midnightIn(timeZone, Date.UTC(wallNow.getUTCFullYear(), wallNow.getUTCMonth(), wallNow.getUTCDate() - daysBack));
}

/** The calendar day (`YYYY-MM-DD`) an instant falls on in `timeZone`. */
export function dayIn(timeZone: string, instant: Date): string {
  return new Date(instant.getTime() + zoneOffsetMs(timeZone, instant)).toISOString().slice(0, 10);
}
