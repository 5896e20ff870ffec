import { type CallStatus, finalCallStatuses } from '@voice/proto';

/**
 * Calls move forward only: queued → ringing → in_progress → one final status. Carrier callbacks can
 * arrive late, twice or out of order; a report that would move a call backwards, or change a final
 * status, is ignored.
 */
const rank: Record<CallStatus, number> = {
  queued: 0,
  ringing: 1,
  in_progress: 2,
  completed: 3,
  failed: 3,
  canceled: 3,
  no_answer: 3,
  busy: 3,
};

export function isFinal(status: CallStatus): boolean {
  return (finalCallStatuses as readonly CallStatus[]).includes(status);
}

/** The statuses a call may be in for `next` to apply. */
export function statusesBefore(next: CallStatus): CallStatus[] {
  return (Object.keys(rank) as CallStatus[]).filter((status) => rank[status] < rank[next]);
}

export function canMove(from: CallStatus, to: CallStatus): boolean {
  return rank[from] < rank[to];
}

/** Twilio's CallStatus values mapped onto ours; `queued` and `initiated` change nothing. */
export function fromTwilioCallStatus(value: string): CallStatus | undefined {
  switch (value) {
    case 'ringing':
      return 'ringing';
    case 'in-progress':
    case 'answered':
      return 'in_progress';
    case 'completed':
      return 'completed';
    case 'busy':
      return 'busy';
    case 'no-answer':
      return 'no_answer';
    case 'failed':
      return 'failed';
    case 'canceled':
      return 'canceled';
    default:
      return undefined;
  }
}

/** The event a status change publishes. */
export function callEventType(status: CallStatus) {
  switch (status) {
    case 'queued':
      return 'call.queued' as const;
    case 'ringing':
      return 'call.ringing' as const;
    case 'in_progress':
      return 'call.started' as const;
    case 'completed':
      return 'call.completed' as const;
    case 'canceled':
      return 'call.canceled' as const;
    case 'failed':
    case 'no_answer':
    case 'busy':
      return 'call.failed' as const;
  }
}
