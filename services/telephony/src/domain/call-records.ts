import { isoOrNull } from '@voice/kit';
import type { Call, CallListItem } from '@voice/proto';
import type { Call as CallRow } from '../generated/prisma/client.js';

/** A stored call as the public list item: no transcript or recording, which can be large. */
export function toCallListItem(row: CallRow): CallListItem {
  return {
    id: row.id,
    object: 'call',
    workspace_id: row.workspaceId,
    direction: row.direction,
    from: row.fromNumber,
    to: row.toNumber,
    lead_id: row.leadId,
    status: row.status,
    outcome: row.outcome,
    end_reason: row.endReason,
    source: row.source,
    duration_seconds: row.durationSeconds,
    cost: row.costAmount === null || row.costCurrency === null ? null : { amount: row.costAmount, currency: row.costCurrency },
    metadata: row.metadata as CallListItem['metadata'],
    created_at: row.createdAt.toISOString(),
    started_at: isoOrNull(row.startedAt),
    ended_at: isoOrNull(row.endedAt),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toCall(row: CallRow): Call {
  return { ...toCallListItem(row), recording_url: row.recordingUrl, transcript: row.transcript, summary: row.summary };
}
