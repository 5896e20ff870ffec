import { isoOrNull } from '@voice/kit';
import { type DncEntry, livemodeOf, type Sms } from '@voice/proto';
import type { DncEntry as DncRow, Sms as SmsRow } from '../generated/prisma/client.js';

export function toSms(row: SmsRow): Sms {
  return {
    id: row.id,
    object: 'sms',
    livemode: livemodeOf(row.orgId),
    workspace_id: row.workspaceId,
    direction: row.direction,
    from: row.fromNumber,
    to: row.toNumber,
    body: row.body,
    segments: row.segments,
    status: row.status,
    error: row.errorCode === null ? null : { code: row.errorCode, message: row.errorMessage ?? '' },
    lead_id: row.leadId,
    source: row.source,
    cost: row.costAmount === null || row.costCurrency === null ? null : { amount: row.costAmount, currency: row.costCurrency },
    metadata: row.metadata as Sms['metadata'],
    created_at: row.createdAt.toISOString(),
    sent_at: isoOrNull(row.sentAt),
    delivered_at: isoOrNull(row.deliveredAt),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toDncEntry(row: DncRow): DncEntry {
  return {
    id: row.id,
    object: 'dnc_entry',
    phone: row.phone,
    channel: row.channel,
    reason: row.reason,
    source: row.source,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
