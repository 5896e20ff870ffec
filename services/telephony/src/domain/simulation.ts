// The sandbox simulator's moves (carrier/sandbox.ts places the calls, the dialer's sandbox worker plays them
// out step by step) and test mode's helpers, which move the same calls by the same moves: a call a helper
// advanced reads, announces and records its timeline exactly as one that got there by itself.
import { ApiError, newId } from '@voice/kit';
import { type Call, type CallOutcome, type CallStatus, isTestOrg, testStopReplyNumber } from '@voice/proto';
import { type SandboxStep, sandboxSid } from '../carrier/sandbox.js';
import type { Prisma } from '../generated/prisma/client.js';
import { type CallRow, createInboundCall, findCallForCarrier, findCallRow, readCall, transitionCall } from '../store/calls.js';
import { conversationsBetween, createInboundSms, findSmsForCarrier, type SmsRow } from '../store/sms.js';
import { isFinal } from './call-status.js';
import type { DialerQueue, TelephonyContext } from './context.js';
import { optInBySms, optOutBySms } from './dnc.js';
import { isOptIn, isOptOut } from './dnc-rules.js';
import { recordCallEvent, recordSmsEvent, withEvents } from './events.js';
import { toSms } from './records.js';
import { answeredPlay, type SandboxScript, sandboxConversation, sandboxScript, simulationLabel } from './sandbox-script.js';
import { applySmsReport } from './sms.js';
import { smsSegments } from './sms-segments.js';

type Scheduler = Pick<DialerQueue, 'scheduleSandbox'>;

/** The script of a stored call (sandbox-script.ts): the same for every step and helper that reads it. */
export function scriptOf(call: CallRow): SandboxScript {
  return sandboxScript(call.id, call.metadata as Record<string, unknown>, {
    direction: call.direction,
    contact: call.direction === 'inbound' ? call.fromNumber : call.toNumber,
  });
}

/** Milliseconds for simulated seconds, scaled by SANDBOX_TIME_SCALE. */
const scaled = (context: Pick<TelephonyContext, 'env'>, seconds: number) => Math.round(seconds * 1000 * context.env.SANDBOX_TIME_SCALE);

/** A move of a simulated call to one status; a completed call gets `outcome`, else its script's. */
interface Move {
  to: CallStatus;
  outcome?: CallOutcome | undefined;
}

/** What a move writes besides the status: the times, and for a call that ends, how it ended and its cost. */
function moveData(context: TelephonyContext, call: CallRow, move: Move, now: Date): Prisma.CallUpdateManyMutationInput {
  // updated_at is the change's time in the call's timeline (call_status_changes), as for a carrier's report.
  const data: Prisma.CallUpdateManyMutationInput = { status: move.to, updatedAt: now };
  if (move.to === 'in_progress') data.startedAt = now;
  if (!isFinal(move.to)) return data;
  data.endedAt = now;
  if (move.to === 'completed') {
    const { outcome, talkSeconds } = answeredPlay(call.id, scriptOf(call), move.outcome);
    const conversation = sandboxConversation(outcome, talkSeconds, { label: simulationLabel(call.orgId), direction: call.direction });
    return {
      ...data,
      outcome,
      endReason: 'hangup',
      durationSeconds: talkSeconds,
      costAmount: Math.ceil(talkSeconds / 60) * context.env.SANDBOX_MINUTE_PRICE,
      costCurrency: context.env.TELEPHONY_CURRENCY,
      transcript: conversation.transcript,
      transcriptTurns: conversation.transcriptTurns,
      summary: conversation.summary,
    };
  }
  // Canceled before anyone answered, as the cancel operation leaves a call.
  if (move.to === 'canceled') return { ...data, endReason: 'canceled' };
  // Ended without a conversation; a call that fails after the answer lasted until now, in simulated seconds.
  const talked = call.startedAt ? (now.getTime() - call.startedAt.getTime()) / 1000 / context.env.SANDBOX_TIME_SCALE : 0;
  return { ...data, endReason: move.to, durationSeconds: Math.round(talked) };
}

/**
 * Moves a simulated call from exactly the status it was read in, with its event, in one transaction: of a
 * scheduled step and a test helper making the same move at the same moment, one wins and the other finds the
 * call moved (null), so no status is reached twice and no event is recorded twice.
 */
async function moveCall(context: TelephonyContext, call: CallRow, move: Move): Promise<CallRow | null> {
  return withEvents(context, async (tx, events) => {
    const moved = await transitionCall(tx, call.orgId, call.id, [call.status], moveData(context, call, move, new Date()));
    if (moved) recordCallEvent(events, moved);
    return moved;
  });
}

/**
 * The step the simulation takes after a call reached `status`, and when: from ringing the answer (or the
 * scripted end of a call nobody answers) after the ringing time, from in progress the hang-up after the talk.
 */
function followUp(call: CallRow, script: SandboxScript): { step: 'answer' | 'hangup'; afterSeconds: number } | undefined {
  if (call.status === 'ringing')
    return { step: script.finalStatus === 'completed' ? 'answer' : 'hangup', afterSeconds: script.ringSeconds };
  if (call.status === 'in_progress') return { step: 'hangup', afterSeconds: answeredPlay(call.id, script).talkSeconds };
  return undefined;
}

/**
 * Schedules the call's next step. Steps are keyed by call and step, so the one scheduled by the step that
 * got the call here and the one scheduled by a helper that moved it are one job.
 */
async function scheduleFollowUp(context: TelephonyContext, scheduler: Scheduler, call: CallRow, script: SandboxScript) {
  const next = followUp(call, script);
  if (!next) return;
  await scheduler.scheduleSandbox(
    { kind: 'call', callId: call.id, orgId: call.orgId, step: next.step },
    scaled(context, next.afterSeconds),
  );
}

/** The move a scheduled step makes from the status the call is in; none once the call is past it. */
function stepMove(step: 'ringing' | 'answer' | 'hangup', status: CallStatus, script: SandboxScript): Move | undefined {
  switch (step) {
    case 'ringing':
      return status === 'queued' ? { to: 'ringing' } : undefined;
    case 'answer':
      return status === 'ringing' ? { to: 'in_progress' } : undefined;
    case 'hangup':
      if (status === 'in_progress') return { to: 'completed' };
      return status === 'ringing' && script.finalStatus !== 'completed' ? { to: script.finalStatus } : undefined;
  }
}

const stepReaches = { ringing: 'ringing', answer: 'in_progress', hangup: undefined } as const;

/**
 * One scheduled step of a call's simulation. It moves the call only from the status it expects, so a call
 * canceled or moved on by a test helper is left where it is (the helper scheduled what follows), and a step
 * run twice records nothing twice. A step that finds the call where it would have taken it (its first run
 * died after the change) schedules what follows.
 */
export async function playCallStep(context: TelephonyContext, scheduler: Scheduler, step: Extract<SandboxStep, { kind: 'call' }>) {
  const call = await findCallForCarrier(context.prisma, step.callId);
  if (!call || call.orgId !== step.orgId) return;
  const script = scriptOf(call);
  const move = stepMove(step.step, call.status, script);
  const now = (move && (await moveCall(context, call, move))) || (await findCallRow(context.prisma, call.orgId, call.id));
  if (now.status === stepReaches[step.step]) await scheduleFollowUp(context, scheduler, now, script);
}

// ---------------------------------------------------------------------------------------------------------
// Messages

/** A test twin's message to the STOP magic number, delivered: its recipient answers STOP. */
function repliesStop(sms: SmsRow): boolean {
  return isTestOrg(sms.orgId) && sms.direction === 'outbound' && sms.toNumber === testStopReplyNumber && sms.status === 'delivered';
}

/** Seconds the STOP magic number takes to answer a delivered message. */
const stopReplySeconds = 5;

/** One scheduled step of a message's simulation: its delivery, then for the STOP magic number the reply. */
export async function playSmsStep(context: TelephonyContext, scheduler: Scheduler, step: Extract<SandboxStep, { kind: 'sms' }>) {
  const sms = await findSmsForCarrier(context.prisma, step.smsId);
  if (!sms || sms.orgId !== step.orgId) return;
  if (step.step === 'delivered') {
    const delivered = (await applySmsReport(context, sms.orgId, sms.id, { status: 'delivered' })) ?? sms;
    if (repliesStop(delivered)) await scheduler.scheduleSandbox({ ...step, step: 'stop_reply' }, scaled(context, stopReplySeconds));
    return;
  }
  if (!repliesStop(sms)) return;
  await receiveSimulatedSms(context, sms.orgId, {
    from: sms.toNumber,
    to: sms.fromNumber,
    body: 'STOP',
    // Derived from the message answered: a step run twice files one reply.
    carrierMessageId: sandboxSid('SM', `${sms.id}:stop_reply`),
    contact: { leadId: sms.leadId, workspaceId: sms.workspaceId },
  });
}

/** Simulated inbound traffic belongs to the test twin that caused it, and only ever to a test twin. */
function assertTestTwin(orgId: string): void {
  if (!isTestOrg(orgId)) throw new Error(`simulated inbound traffic for the live organization ${orgId}`);
}

/** The lead and workspace of the twin's last contact with `theirNumber` from `ourNumber`, if any. */
async function twinContact(context: TelephonyContext, orgId: string, ourNumber: string, theirNumber: string) {
  const [latest] = await conversationsBetween(context.prisma, ourNumber, theirNumber, { orgId });
  return { leadId: latest?.leadId ?? null, workspaceId: latest?.workspaceId ?? null };
}

/**
 * An inbound message the simulator makes up for a test twin: filed under that twin alone (never routed by
 * number, which could reach a live organization), announced with `sms.received`, and STOP or START applied
 * to the twin's do-not-call list alone, as for a real message. Filed once per carrier id.
 */
async function receiveSimulatedSms(
  context: TelephonyContext,
  orgId: string,
  message: {
    from: string;
    to: string;
    body: string;
    carrierMessageId: string;
    id?: string;
    contact?: { leadId: string | null; workspaceId: string | null };
  },
): Promise<SmsRow> {
  assertTestTwin(orgId);
  let row = await context.prisma.sms.findFirst({ where: { orgId, carrierMessageId: message.carrierMessageId } });
  if (!row) {
    const contact = message.contact ?? (await twinContact(context, orgId, message.to, message.from));
    row = await withEvents(context, async (tx, events) => {
      const created = await createInboundSms(tx, orgId, {
        ...(message.id ? { id: message.id } : {}),
        from: message.from,
        to: message.to,
        body: message.body,
        segments: smsSegments(message.body),
        carrierMessageId: message.carrierMessageId,
        ...contact,
      });
      recordSmsEvent(events, 'sms.received', created);
      return created;
    });
  }
  // Idempotent, and done again for a message already filed, like a carrier's redelivery (sms.ts).
  if (isOptOut(message.body)) await optOutBySms(context, orgId, message.from, message.body);
  else if (isOptIn(message.body)) await optInBySms(context, orgId, message.from);
  return row;
}

// ---------------------------------------------------------------------------------------------------------
// Test helpers (testOnly operations: the kit answers a live identity 404 before these run)

/** Where a helper moves a call: a status, and for a completed call the outcome when one was asked for. */
interface Target {
  status: CallStatus;
  outcome?: CallOutcome | undefined;
}

/** The next status on the way from `from` to `target`, or none when the target cannot be reached from there. */
function hopToward(from: CallStatus, target: CallStatus): CallStatus | undefined {
  if (from === 'queued') return target === 'canceled' ? 'canceled' : 'ringing';
  if (from === 'ringing') return target === 'completed' ? 'in_progress' : target;
  // Once answered, a call completes or fails; it can no longer be busy, unanswered or canceled.
  if (from === 'in_progress' && (target === 'completed' || target === 'failed')) return target;
  return undefined;
}

function reachable(from: CallStatus, target: CallStatus): boolean {
  let status: CallStatus | undefined = from;
  for (let hops = 0; status && status !== target && hops < 4; hops++) status = hopToward(status, target);
  return status === target;
}

/** The next state of the call's simulation: ringing, then answered or its scripted end, then completed. */
function nextTarget(status: CallStatus, script: SandboxScript): Target {
  if (status === 'queued') return { status: 'ringing' };
  if (status === 'ringing') return { status: script.finalStatus === 'completed' ? 'in_progress' : script.finalStatus };
  return { status: 'completed' };
}

const said = (status: CallStatus) => status.replace('_', ' ');

/**
 * `advanceCall`: moves a test call to its next state, to a chosen status, or answered and completed with a
 * chosen outcome, through every status on the way, each by the simulator's own move (moveCall), so it sends
 * the events and fills the timeline of a call that got there by itself. A step scheduled for a state the
 * call has passed finds it moved and does nothing; the simulation goes on from the new state by a step this
 * schedules. An ended call, or a target behind or out of reach, is 409 `conflict`; so is a call that a
 * scheduled step ended another way meanwhile.
 */
export async function advanceCall(
  context: TelephonyContext,
  orgId: string,
  input: { id: string; status?: CallStatus | undefined; outcome?: CallOutcome | undefined },
): Promise<Call> {
  const seen = await findCallRow(context.prisma, orgId, input.id);
  if (isFinal(seen.status)) {
    throw new ApiError('conflict', `This call has ended (${said(seen.status)}); an ended call does not move.`, { param: 'id' });
  }
  const script = scriptOf(seen);
  const target: Target = input.outcome
    ? { status: 'completed', outcome: input.outcome }
    : input.status
      ? { status: input.status }
      : nextTarget(seen.status, script);
  if (target.status === seen.status || !reachable(seen.status, target.status)) {
    throw new ApiError('conflict', `A ${said(seen.status)} call cannot move to ${said(target.status)}; calls only move forward.`, {
      param: 'status',
    });
  }
  let call = seen;
  while (call.status !== target.status && !isFinal(call.status)) {
    const hop = hopToward(call.status, target.status);
    if (!hop) break;
    // A step that moved the call meanwhile wins; the helper goes on from where that left it.
    call = (await moveCall(context, call, { to: hop, outcome: target.outcome })) ?? (await findCallRow(context.prisma, orgId, call.id));
  }
  if (call.status !== target.status || (target.outcome && call.outcome !== target.outcome)) {
    throw new ApiError('conflict', `The call moved on meanwhile: it is ${said(call.status)} now.`, { param: 'id' });
  }
  await goOn(context, call, script);
  return readCall(context.prisma, call);
}

/**
 * Schedules what follows a helper's change. The change is made: a failed schedule must not fail the request
 * (a retry would move the call again); the call then waits for another helper call, or the stuck-call sweep.
 */
async function goOn(context: TelephonyContext, call: CallRow, script: SandboxScript): Promise<void> {
  await scheduleFollowUp(context, context.dialer, call, script).catch((error: unknown) =>
    context.logger.warn(
      { err: error, call_id: call.id },
      'sandbox step not scheduled; the call waits for a helper or the stuck-call sweep',
    ),
  );
}

/**
 * `simulateInboundCall`: a call to the twin's number (the platform's when none is given) from `from`, filed
 * under the twin alone (never routed by number) with the lead of the twin's last contact with that number,
 * announced ringing, then answered and completed with `outcome` on the simulator's timings. The outcome is
 * kept in the call's metadata (`sandbox_outcome`), where every step and helper reads it.
 */
export async function simulateInboundCall(
  context: TelephonyContext,
  orgId: string,
  input: { from: string; to?: string | undefined; outcome?: CallOutcome | undefined },
): Promise<Call> {
  assertTestTwin(orgId);
  const to = input.to ?? context.env.TELEPHONY_DEFAULT_FROM;
  const contact = await twinContact(context, orgId, to, input.from);
  const id = newId('call');
  const call = await withEvents(context, async (tx, events) => {
    const row = await createInboundCall(tx, orgId, {
      id,
      from: input.from,
      to,
      carrierCallId: sandboxSid('SB', id),
      ...contact,
      ...(input.outcome ? { metadata: { sandbox_outcome: input.outcome } } : {}),
    });
    recordCallEvent(events, row);
    return row;
  });
  await goOn(context, call, scriptOf(call));
  return readCall(context.prisma, call);
}

/**
 * `simulateInboundSms`: a message to the twin's number (the platform's when none is given) from `from`, filed
 * under the twin alone and handled as a real one (STOP and START on the twin's do-not-call list).
 */
export async function simulateInboundSms(
  context: TelephonyContext,
  orgId: string,
  input: { from: string; to?: string | undefined; body: string },
) {
  const id = newId('sms');
  const row = await receiveSimulatedSms(context, orgId, {
    id,
    from: input.from,
    to: input.to ?? context.env.TELEPHONY_DEFAULT_FROM,
    body: input.body,
    carrierMessageId: sandboxSid('SM', id),
  });
  return toSms(row);
}
