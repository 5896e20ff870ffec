import { createHash } from 'node:crypto';
import type { Bus } from '@voice/kit';
import type { EventType } from '@voice/proto';
import type { Call as CallRow, DncEntry as DncRow, Sms as SmsRow } from '../generated/prisma/client.js';
import { toCallListItem } from './call-records.js';
import { callEventType } from './call-status.js';
import { toDncEntry, toSms } from './records.js';

/**
 * Event ids derived from what happened (record id and new state), not random: a retried step publishes
 * the same id again, JetStream drops the duplicate within its window, and consumers can dedupe beyond it.
 */
export function stableEventId(key: string): string {
  return `evt_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

export function publishCallEvent(bus: Bus, row: CallRow) {
  return bus.publish(
    callEventType(row.status),
    row.orgId,
    { call_id: row.id, ...toCallListItem(row) },
    { id: stableEventId(`${row.id}:${row.status}`) },
  );
}

export function publishSmsEvent(bus: Bus, type: Extract<EventType, `sms.${string}`>, row: SmsRow) {
  return bus.publish(type, row.orgId, { sms_id: row.id, ...toSms(row) }, { id: stableEventId(`${row.id}:${type}`) });
}

export function publishDncEvent(bus: Bus, type: 'dnc.added' | 'dnc.removed', row: DncRow) {
  return bus.publish(type, row.orgId, { dnc_id: row.id, ...toDncEntry(row) }, { id: stableEventId(`${row.id}:${type}`) });
}
