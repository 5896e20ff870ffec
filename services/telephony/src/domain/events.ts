import { commitWithEvents, eventId, type PendingEvents } from '@voice/kit';
import type { EventType } from '@voice/proto';
import type { Call as CallRow, DncEntry as DncRow, Prisma, Sms as SmsRow } from '../generated/prisma/client.js';
import { toCallListItem } from './call-records.js';
import { callEventType } from './call-status.js';
import type { TelephonyContext } from './context.js';
import { toDncEntry, toSms } from './records.js';

export type TelephonyTx = Prisma.TransactionClient;

/**
 * Runs a change in one transaction with the events it records (the outbox): a committed change always gets
 * its events out, and the caller never waits for NATS. Each record's events keep their order.
 */
export function withEvents<T>(
  context: Pick<TelephonyContext, 'prisma' | 'outbox'>,
  change: (tx: TelephonyTx, events: PendingEvents) => Promise<T>,
): Promise<T> {
  return commitWithEvents((work) => context.prisma.$transaction(work), context.outbox, change);
}

// Event ids derived from the record and what happened to it (kit's eventId): a retried step records the
// same id again, the outbox and JetStream drop the repeat, and consumers can dedupe beyond the window.
export function recordCallEvent(events: PendingEvents, row: CallRow) {
  events.add(
    callEventType(row.status),
    row.orgId,
    { call_id: row.id, ...toCallListItem(row) },
    { id: eventId(`${row.id}:${row.status}`), aggregateId: row.id },
  );
}

export function recordSmsEvent(events: PendingEvents, type: Extract<EventType, `sms.${string}`>, row: SmsRow) {
  events.add(type, row.orgId, { sms_id: row.id, ...toSms(row) }, { id: eventId(`${row.id}:${type}`), aggregateId: row.id });
}

export function recordDncEvent(events: PendingEvents, type: 'dnc.added' | 'dnc.removed', row: DncRow) {
  events.add(type, row.orgId, { dnc_id: row.id, ...toDncEntry(row) }, { id: eventId(`${row.id}:${type}`), aggregateId: row.id });
}
