import { midnightIn } from '@voice/kit';

/**
 * The instant (ISO 8601) a calendar day (`YYYY-MM-DD`, plus `addDays`) begins in a person's time zone: its
 * midnight there, a daylight-saving change that day accounted for. Lists filter by whole days in the person's
 * time zone, `to` included (until the next day's start).
 */
export function dayStart(date: string, timeZone: string, addDays = 0): string {
  return midnightIn(timeZone, Date.parse(`${date}T00:00:00.000Z`) + addDays * 86_400_000).toISOString();
}
