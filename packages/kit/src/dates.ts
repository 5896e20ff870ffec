/** A nullable timestamp as records carry it: ISO 8601 in UTC with milliseconds, or null. */
export function isoOrNull(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

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
 * The instant a day begins in a time zone, given that day's midnight written as if it were UTC (e.g.
 * `Date.UTC(2026, 10, 27)`). Corrected once for the offset at the result itself, so a daylight-saving
 * change between the two is accounted for.
 */
export function midnightIn(timeZone: string, wallMidnightMs: number): Date {
  const guess = wallMidnightMs - zoneOffsetMs(timeZone, new Date(wallMidnightMs));
  return new Date(wallMidnightMs - zoneOffsetMs(timeZone, new Date(guess)));
}
