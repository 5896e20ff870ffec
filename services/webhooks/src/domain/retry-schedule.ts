/**
 * The production retry schedule: the waits after the first, second, … failed attempt. With the immediate
 * first attempt that is ten attempts over about three days (Standard Webhooks / Svix).
 */
export const productionRetryScheduleMs: readonly number[] = [
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
  10 * 3_600_000, // 10 h
  14 * 3_600_000, // 14 h
  20 * 3_600_000, // 20 h
  24 * 3_600_000, // 24 h
];

/** Parses `WEBHOOK_RETRY_SCHEDULE_MS`: comma-separated waits in milliseconds. */
export function parseRetrySchedule(text: string): number[] {
  const waits = text.split(',').map((part) => Number(part.trim()));
  if (waits.length === 0 || waits.some((wait) => !Number.isInteger(wait) || wait < 0)) {
    throw new Error('must be comma-separated non-negative integers (milliseconds)');
  }
  return waits;
}

/** Attempts in all: the immediate one plus one per wait. */
export function maxAttempts(scheduleMs: readonly number[]): number {
  return scheduleMs.length + 1;
}

/**
 * The wait before the next attempt after `attemptsMade` attempts failed, or null when none is left and the
 * delivery is a dead letter.
 */
export function nextRetryDelayMs(scheduleMs: readonly number[], attemptsMade: number): number | null {
  if (attemptsMade < 1) return 0;
  return scheduleMs[attemptsMade - 1] ?? null;
}
