import { nextRetryDelayMs } from './retry-schedule.js';

/** What one attempt returned: an HTTP status, or no response at all (timeout, refused, forbidden address…). */
export type AttemptResult = { kind: 'response'; status: number } | { kind: 'error' };

export type Outcome =
  | { kind: 'succeeded' }
  /** 410 Gone: the receiver says the endpoint no longer exists; disable it at once, no retries. */
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  /** No retry left; `disableEndpoint` when the endpoint has now failed for longer than allowed. */
  | { kind: 'dead'; disableEndpoint: boolean };

export interface OutcomeRules {
  retryScheduleMs: readonly number[];
  disableAfterFailingMs: number;
}

/**
 * The rules of one attempt. 2xx succeeds; any other status, a timeout or a network error fails and is
 * retried on the schedule; 410 disables the endpoint; an endpoint failing since longer than
 * `disableAfterFailingMs` is disabled and the delivery becomes a dead letter.
 */
export function decideOutcome(
  result: AttemptResult,
  attemptsMade: number,
  failingSince: Date | null,
  now: Date,
  rules: OutcomeRules,
): Outcome {
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) return { kind: 'succeeded' };
  if (result.kind === 'response' && result.status === 410) return { kind: 'gone' };
  if (failingSince !== null && now.getTime() - failingSince.getTime() >= rules.disableAfterFailingMs) {
    return { kind: 'dead', disableEndpoint: true };
  }
  const delayMs = nextRetryDelayMs(rules.retryScheduleMs, attemptsMade);
  return delayMs === null ? { kind: 'dead', disableEndpoint: false } : { kind: 'retry', delayMs };
}
