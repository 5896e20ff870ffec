import { isoOrNull } from '@voice/kit';
import { type Call, type CallListItem, type CallStatusChange, livemodeOf, type TranscriptTurn } from '@voice/proto';
import type { Call as CallRow } from '../generated/prisma/client.js';

/** What a list reads of a call: everything but the conversation, which can be large. */
export type CallListRow = Omit<CallRow, 'transcript' | 'transcriptTurns' | 'summary' | 'numbers'>;

/** A stored call as the public list item: no transcript or recording, which can be large. */
export function toCallListItem(row: CallListRow): CallListItem {
  return {
    id: row.id,
    object: 'call',
    // A test twin's call (test mode) was simulated: the organization's id alone says so.
    livemode: livemodeOf(row.orgId),
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

/** A stored call and its status changes (call_status_changes, oldest first) as the public call. */
export function toCall(row: CallRow, timeline: CallStatusChange[]): Call {
  return {
    ...toCallListItem(row),
    recording_url: row.recordingUrl,
    transcript: row.transcript,
    transcript_turns: row.transcriptTurns as TranscriptTurn[] | null,
    summary: row.summary,
    timeline,
  };
}
