import { createHash } from 'node:crypto';
import { commitWithEvents, type PendingEvents } from '@voice/kit';
import type { EventType } from '@voice/proto';
import type { Call as CallRow, DncEntry as DncRow, Prisma, Sms as SmsRow } from '../generated/prisma/client.js';
import { toCallListItem } from './call-records.js';
import { callEventType } from './call-status.js';
import type { TelephonyContext } from './context.js';
import { toDncEntry, toSms } from './records.js';

export type TelephonyTx = Prisma.TransactionClient;

/**
 * Event ids derived from what happened (record id and new state), not random: a retried step records the
 * same id again, JetStream drops the duplicate within its window, and consumers can dedupe beyond it.
 */
export function stableEventId(key: string): string {
  return `evt_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

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

export function recordCallEvent(events: PendingEvents, row: CallRow) {
  events.add(
    callEventType(row.status),
    row.orgId,
    { call_id: row.id, ...toCallListItem(row) },
    { id: stableEventId(`${row.id}:${row.status}`), aggregateId: row.id },
  );
}

export function recordSmsEvent(events: PendingEvents, type: Extract<EventType, `sms.${string}`>, row: SmsRow) {
  events.add(type, row.orgId, { sms_id: row.id, ...toSms(row) }, { id: stableEventId(`${row.id}:${type}`), aggregateId: row.id });
}

export function recordDncEvent(events: PendingEvents, type: 'dnc.added' | 'dnc.removed', row: DncRow) {
  events.add(type, row.orgId, { dnc_id: row.id, ...toDncEntry(row) }, { id: stableEventId(`${row.id}:${type}`), aggregateId: row.id });
}
