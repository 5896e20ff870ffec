import { ApiError } from '@voice/kit';
import type { CallOutcome, CallStatus, Identity, QueueCallInput, TranscriptTurn } from '@voice/proto';
import { Prisma } from '../generated/prisma/client.js';
import {
  type CallRow,
  claimForDial,
  createInboundCall,
  createOutboundCall,
  findCallByCarrierId,
  findCallRow,
  readCall,
  stuckCalls,
  transitionCall,
  transitionUnchangedCall,
  updateCall,
} from '../store/calls.js';
import { isFinal, statusesBefore } from './call-status.js';
import type { TelephonyContext } from './context.js';
import { assertContactAllowed, isBlocked } from './dnc.js';
import { recordCallEvent, withEvents } from './events.js';
import { assertOwnReferences } from './leads.js';
import { routeInbound } from './routing.js';

/** The callback URL carriers report a call's progress to, through the gateway's public hooks path. */
export function callStatusCallbackUrl(publicBaseUrl: string, callId: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}/api/hooks/twilio/calls/status?call_id=${callId}`;
}

/**
 * Queues an outbound call: refused for do-not-call numbers, stored as `queued`, announced (`call.queued`)
 * and handed to the dialer. Its definition makes it idempotent: with a key, the same request twice makes one call.
 */
export async function queueCall(context: TelephonyContext, identity: Identity, request: Omit<QueueCallInput, 'idempotency_key'>) {
  await assertOwnReferences(context, identity, request);
  await assertContactAllowed(context, identity.org_id, request.to, 'voice');
  const row = await withEvents(context, async (tx, events) => {
    const created = await createOutboundCall(tx, identity.org_id, {
      ...request,
      from: request.from ?? context.env.TELEPHONY_DEFAULT_FROM,
    });
    recordCallEvent(events, created);
    return created;
  });
  // The call exists from here on: a failed enqueue must not fail the request (a retry would queue a
  // second call). The sweeper enqueues again.
  await context.dialer
    .enqueueCall(row.orgId, row.id)
    .catch((error: unknown) => context.logger.warn({ err: error, call_id: row.id }, 'dial job not enqueued; the sweeper will retry'));
  return readCall(context.prisma, row);
}

/** The statuses a call can be canceled in: before anyone answered. */
export const cancelableCallStatuses = ['queued', 'ringing'] as const satisfies readonly CallStatus[];

/**
 * Cancels a call nobody has answered yet: queued (the dialer has not placed it) or ringing. A ringing call is
 * the carrier's, so the carrier cancels it first (Twilio: `Status=canceled`, which stops a queued or ringing
 * call and leaves an answered one alone) and the record follows; if the carrier cannot be reached nothing
 * changes and the person may try again. If the call was answered in between, the record has moved on and
 * the answer is 409, as for any status after ringing. A queued call is canceled in the record first, so the
 * dialer's claim sees it; a dial already under way is stopped at the carrier after it (see dialCall).
 */
export async function cancelCall(context: TelephonyContext, orgId: string, id: string) {
  let askedCarrier = false;
  // Twice at most: a queued call the dialer places meanwhile is found ringing on the second turn.
  for (let turn = 0; turn < 2; turn++) {
    const current = await findCallRow(context.prisma, orgId, id);
    if (!(cancelableCallStatuses as readonly CallStatus[]).includes(current.status)) break;
    if (current.status === 'ringing' && current.carrierCallId) {
      await cancelAtCarrier(context, orgId, current.carrierCallId, id);
      askedCarrier = true;
    }
    const row = await withEvents(context, async (tx, events) => {
      const now = new Date();
      // Only from the status seen: a call that started ringing since is the carrier's to cancel first.
      const canceled = await transitionCall(tx, orgId, id, [current.status], {
        status: 'canceled',
        endReason: 'canceled',
        endedAt: now,
        updatedAt: now,
      });
      if (canceled) recordCallEvent(events, canceled);
      return canceled;
    });
    if (!row) continue;
    if (current.status === 'queued' && row.carrierCallId) {
      await context
        .carrierFor(orgId)
        .cancelCall(row.carrierCallId)
        .catch((error: unknown) => context.logger.warn({ err: error, call_id: id }, 'carrier cancel failed'));
    }
    return readCall(context.prisma, row);
  }
  const after = await findCallRow(context.prisma, orgId, id);
  // The carrier's own "canceled" report can land between its answer and the update.
  if (askedCarrier && after.status === 'canceled') return readCall(context.prisma, after);
  throw new ApiError('conflict', `Only queued or ringing calls can be canceled; this call is ${after.status.replace('_', ' ')}.`, {
    param: 'id',
  });
}

async function cancelAtCarrier(context: TelephonyContext, orgId: string, carrierCallId: string, callId: string): Promise<void> {
  try {
    await context.carrierFor(orgId).cancelCall(carrierCallId);
  } catch (error) {
    context.logger.warn({ err: error, call_id: callId }, 'carrier cancel failed');
    throw new ApiError('unavailable', 'The carrier did not confirm the cancellation, so the call may still ring. Try again.', {
      cause: error,
    });
  }
}

export interface CallReport {
  status: CallStatus;
  outcome?: CallOutcome | null;
  endReason?: string | null;
  durationSeconds?: number | null;
  costAmount?: number | null;
  recordingUrl?: string | null;
  transcript?: string | null;
  transcriptTurns?: TranscriptTurn[] | null;
  summary?: string | null;
  carrierCallId?: string;
}

/**
 * Applies a status report from the carrier (callback or simulation step). Only forward moves apply, each
 * recorded with its event in one transaction; a repeat of the current status records its event again
 * under the same id, which JetStream drops as a duplicate.
 */
export async function applyCallReport(
  context: TelephonyContext,
  orgId: string,
  callId: string,
  report: CallReport,
): Promise<CallRow | null> {
  const now = new Date();
  // updated_at is the change's time in the call's timeline (call_status_changes): the same instant as
  // started_at or ended_at.
  const data: Prisma.CallUpdateManyMutationInput = { status: report.status, updatedAt: now };
  if (report.status === 'in_progress') data.startedAt = now;
  if (isFinal(report.status)) data.endedAt = now;
  if (report.outcome !== undefined) data.outcome = report.outcome;
  if (report.endReason !== undefined) data.endReason = report.endReason;
  if (report.durationSeconds !== undefined) data.durationSeconds = report.durationSeconds;
  if (report.recordingUrl !== undefined) data.recordingUrl = report.recordingUrl;
  if (report.transcript !== undefined) data.transcript = report.transcript;
  if (report.transcriptTurns !== undefined) data.transcriptTurns = report.transcriptTurns ?? Prisma.DbNull;
  if (report.summary !== undefined) data.summary = report.summary;
  if (report.costAmount !== undefined && report.costAmount !== null) {
    data.costAmount = report.costAmount;
    data.costCurrency = context.env.TELEPHONY_CURRENCY;
  }
  if (report.carrierCallId !== undefined) data.carrierCallId = report.carrierCallId;
  return withEvents(context, async (tx, events) => {
    const moved = await transitionCall(tx, orgId, callId, statusesBefore(report.status), data);
    if (moved) {
      recordCallEvent(events, moved);
      return moved;
    }
    const current = await findCallRow(tx, orgId, callId);
    if (current.status === report.status) recordCallEvent(events, current);
    return null;
  });
}

export type DialResult = 'placed' | 'adopted' | 'skipped' | 'blocked';

/**
 * One dial attempt for a queued call: the dialer job's work. Safe to run again after a crash at any point:
 * it claims the call only while it is queued and not yet placed, adopts a call the carrier already has
 * for it, and re-checks the do-not-call list at the last moment.
 */
export async function dialCall(context: TelephonyContext, orgId: string, callId: string): Promise<DialResult> {
  const claimed = await withEvents(context, async (tx, events) => {
    const row = await claimForDial(tx, orgId, callId);
    if (row) recordCallEvent(events, row);
    return row;
  });
  if (!claimed) return 'skipped';
  if (await isBlocked(context, orgId, claimed.toNumber, 'voice')) {
    await applyCallReport(context, orgId, callId, { status: 'canceled', endReason: 'dnc_listed' });
    return 'blocked';
  }
  const request = {
    callId,
    orgId,
    from: claimed.fromNumber,
    to: claimed.toNumber,
    statusCallbackUrl: callStatusCallbackUrl(context.env.PUBLIC_BASE_URL, callId),
    metadata: claimed.metadata as Record<string, unknown>,
  };
  const carrier = context.carrierFor(orgId);
  // A previous attempt may have reached the carrier and died before recording its answer.
  const earlier = claimed.dialAttempts > 1 ? await carrier.findPlacedCall(request, claimed.createdAt) : undefined;
  const carrierCallId = earlier ?? (await carrier.placeCall(request)).carrierCallId;
  await updateCall(context.prisma, orgId, callId, { carrierCallId });
  // Canceled while we were dialing: the carrier has the call now, so stop it there too.
  const after = await findCallRow(context.prisma, orgId, callId);
  if (after.status === 'canceled') await carrier.cancelCall(carrierCallId).catch(() => {});
  return earlier ? 'adopted' : 'placed';
}

/** The dialer gave up on a call (carrier refused it, or every retry failed). */
export async function failCall(context: TelephonyContext, orgId: string, callId: string, endReason: string) {
  return applyCallReport(context, orgId, callId, { status: 'failed', endReason });
}

/**
 * Fails the calls stuck past their status's deadline (`CALL_RINGING_TIMEOUT_MS`, `CALL_IN_PROGRESS_TIMEOUT_MS`)
 * with `no_carrier_report`, announced with `call.failed`: their next step was a Redis job (the sandbox)
 * or a carrier callback that is lost, and nothing else would ever end them. Read from Postgres, so it
 * works after Redis lost its data; safe on every replica at once (a call moves only if unchanged).
 */
export async function failStuckCalls(context: TelephonyContext, now = new Date()): Promise<number> {
  const stuck = await stuckCalls(context.prisma, {
    ringingBefore: new Date(now.getTime() - context.env.CALL_RINGING_TIMEOUT_MS),
    inProgressBefore: new Date(now.getTime() - context.env.CALL_IN_PROGRESS_TIMEOUT_MS),
  });
  let failed = 0;
  for (const call of stuck) {
    const row = await withEvents(context, async (tx, events) => {
      const moved = await transitionUnchangedCall(tx, call.orgId, call, {
        status: 'failed',
        endReason: 'no_carrier_report',
        endedAt: now,
        updatedAt: now,
      });
      if (moved) recordCallEvent(events, moved);
      return moved;
    });
    if (!row) continue;
    failed++;
    context.logger.warn({ call_id: row.id, was: call.status, since: call.updatedAt }, 'call without carrier report failed');
  }
  return failed;
}

/** TwiML that hands an answered call to the voice agent, or a short notice when none is configured. */
export function connectTwiml(voiceUrl: string | undefined): string {
  if (voiceUrl) return `<Response><Redirect method="POST">${voiceUrl.replaceAll('&', '&amp;')}</Redirect></Response>`;
  return '<Response><Say>Thank you for calling. Nobody can take your call right now. Goodbye.</Say></Response>';
}

/**
 * An inbound call ringing on one of our numbers: recorded (once per carrier sid) under the organization
 * it routes to, and announced with `call.ringing`. Null when the number routes nowhere.
 */
export async function receiveCall(
  context: TelephonyContext,
  call: { from: string; to: string; carrierCallId: string },
): Promise<CallRow | null> {
  const seen = await findCallByCarrierId(context.prisma, call.carrierCallId);
  if (seen) return seen;
  const [route] = await routeInbound(context, call.to, call.from);
  if (!route) {
    context.logger.info({ to: call.to }, 'inbound call to an unrouted number rejected');
    return null;
  }
  return withEvents(context, async (tx, events) => {
    const row = await createInboundCall(tx, route.orgId, { ...call, leadId: route.leadId, workspaceId: route.workspaceId });
    recordCallEvent(events, row);
    return row;
  });
}
