/** A nullable timestamp as records carry it: ISO 8601 in UTC with milliseconds, or null. */
export function isoOrNull(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
