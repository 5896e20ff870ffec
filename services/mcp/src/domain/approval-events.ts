import { eventId, type PendingEvents } from '@voice/kit';
import { approvalEventDataSchema } from '@voice/proto';
import { type ApprovalRow, toApproval } from '../store/approvals.js';

/** Records `approval.requested` or `approval.resolved` in the transaction that changed the approval. */
export function recordApprovalEvent(events: PendingEvents, type: 'approval.requested' | 'approval.resolved', row: ApprovalRow, now: Date) {
  // The envelope states livemode (from the organization, as every event's); the data does not repeat it.
  const { result: _result, livemode: _livemode, ...approval } = toApproval(row, now);
  events.add(type, row.orgId, approvalEventDataSchema.parse({ ...approval, approval_id: row.id }), {
    // Derived, so a retried change records the same event; one of each type per approval.
    id: eventId(`${type}:${row.id}`),
    aggregateId: row.id,
  });
}
