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
 * The instant a wall-clock reading in `timeZone` names, the reading given as the UTC milliseconds of the same
 * figures (`Date.UTC(2026, 2, 10)` for midnight of 10 March there). Corrected once for the offset at the
 * result itself, so a daylight-saving change between the guess and the answer is accounted for.
 */
export function instantOfWallTime(wallMs: number, timeZone: string): Date {
  const guess = wallMs - zoneOffsetMs(timeZone, new Date(wallMs));
  return new Date(wallMs - zoneOffsetMs(timeZone, new Date(guess)));
}
