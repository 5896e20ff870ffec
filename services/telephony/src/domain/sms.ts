import type { Identity, SendSmsInput, SmsStatus } from '@voice/proto';
import type { Prisma } from '../generated/prisma/client.js';
import {
  createInboundSms,
  createOutboundSms,
  findSmsByCarrierId,
  findSmsRow,
  recordSendFacts,
  type SmsRow,
  transitionSms,
} from '../store/sms.js';
import type { TelephonyContext } from './context.js';
import { assertContactAllowed, isBlocked, optInBySms, optOutBySms } from './dnc.js';
import { isOptIn, isOptOut } from './dnc-rules.js';
import { recordSmsEvent, type TelephonyTx, withEvents } from './events.js';
import { assertOwnReferences } from './leads.js';
import { toSms } from './records.js';
import { routeInbound } from './routing.js';
import { smsSegments } from './sms-segments.js';

export function smsStatusCallbackUrl(publicBaseUrl: string, smsId: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}/api/hooks/twilio/sms/status?sms_id=${smsId}`;
}

/** Sends an SMS: refused for do-not-call numbers, stored as `queued`, handed to the dialer's SMS worker. */
export async function sendSms(context: TelephonyContext, identity: Identity, request: Omit<SendSmsInput, 'idempotency_key'>) {
  await assertOwnReferences(context, identity, request);
  await assertContactAllowed(context, identity.org_id, request.to, 'sms');
  const row = await createOutboundSms(context.prisma, identity.org_id, {
    ...request,
    from: request.from ?? context.env.TELEPHONY_DEFAULT_FROM,
    segments: smsSegments(request.body),
  });
  await context.dialer
    .enqueueSms(row.orgId, row.id)
    .catch((error: unknown) => context.logger.warn({ err: error, sms_id: row.id }, 'sms job not enqueued; the sweeper will retry'));
  return toSms(row);
}

// Messages move forward only, like calls; delivery reports can arrive after a later one.
const smsRank: Record<SmsStatus, number> = {
  queued: 0,
  sending: 1,
  sent: 2,
  delivered: 3,
  undelivered: 3,
  failed: 3,
  received: 3,
  blocked_dnc: 3,
  canceled: 3,
};
const smsStatusesBefore = (next: SmsStatus) => (Object.keys(smsRank) as SmsStatus[]).filter((status) => smsRank[status] < smsRank[next]);

async function moveSms(tx: TelephonyTx, orgId: string, smsId: string, status: SmsStatus, data: Prisma.SmsUpdateManyMutationInput) {
  return transitionSms(tx, orgId, smsId, smsStatusesBefore(status), { ...data, status });
}

/** Moves a message forward and records its event in the same transaction; null when it had moved past. */
function moveSmsWithEvent(
  context: TelephonyContext,
  orgId: string,
  smsId: string,
  status: SmsStatus,
  data: Prisma.SmsUpdateManyMutationInput,
  type: Parameters<typeof recordSmsEvent>[1],
) {
  return withEvents(context, async (tx, events) => {
    const row = await moveSms(tx, orgId, smsId, status, data);
    if (row) recordSmsEvent(events, type, row);
    return row;
  });
}

export type SendResult = 'sent' | 'skipped' | 'blocked';

/**
 * One send attempt: the SMS job's work. A message still `sending` after a crash is sent again, since a
 * carrier offers no way to ask whether it got it: at least once, never lost.
 */
export async function deliverSms(context: TelephonyContext, orgId: string, smsId: string): Promise<SendResult> {
  const current = await findSmsRow(context.prisma, orgId, smsId);
  if (current.status !== 'queued' && current.status !== 'sending') return 'skipped';
  if (await isBlocked(context, orgId, current.toNumber, 'sms')) {
    await moveSmsWithEvent(
      context,
      orgId,
      smsId,
      'blocked_dnc',
      { errorCode: 'dnc_blocked', errorMessage: 'The number was put on the do-not-call list before the message went out.' },
      'sms.failed',
    );
    return 'blocked';
  }
  await moveSms(context.prisma, orgId, smsId, 'sending', { sendAttempts: { increment: 1 } });
  const sent = await context.carrierFor(orgId).sendSms({
    smsId,
    orgId,
    from: current.fromNumber,
    to: current.toNumber,
    body: current.body,
    segments: current.segments,
    statusCallbackUrl: smsStatusCallbackUrl(context.env.PUBLIC_BASE_URL, smsId),
  });
  const facts = {
    carrierMessageId: sent.carrierMessageId,
    sentAt: new Date(),
    ...(sent.costAmount === null ? {} : { costAmount: sent.costAmount, costCurrency: context.env.TELEPHONY_CURRENCY }),
  };
  await withEvents(context, async (tx, events) => {
    // The carrier may report delivery before this point (its callback raced the answer to the send): the
    // status stays where the report moved it, and the send's facts are still kept.
    const row = (await moveSms(tx, orgId, smsId, 'sent', facts)) ?? (await recordSendFacts(tx, orgId, smsId, facts));
    recordSmsEvent(events, 'sms.sent', row ?? (await findSmsRow(tx, orgId, smsId)));
  });
  return 'sent';
}

export async function failSms(context: TelephonyContext, orgId: string, smsId: string, error: { code: string; message: string }) {
  await moveSmsWithEvent(context, orgId, smsId, 'failed', { errorCode: error.code, errorMessage: error.message }, 'sms.failed');
}

/** A delivery report from the carrier. */
export async function applySmsReport(
  context: TelephonyContext,
  orgId: string,
  smsId: string,
  report: { status: 'delivered' | 'undelivered' | 'failed'; errorCode?: string | undefined },
) {
  const data: Prisma.SmsUpdateManyMutationInput =
    report.status === 'delivered'
      ? { deliveredAt: new Date() }
      : { errorCode: report.errorCode ?? report.status, errorMessage: `The carrier reported the message ${report.status}.` };
  return moveSmsWithEvent(context, orgId, smsId, report.status, data, report.status === 'delivered' ? 'sms.delivered' : 'sms.failed');
}

/**
 * An inbound message to one of our numbers, filed under the organization it routes to first (see
 * routing.ts); STOP opts the sender out of messages from every organization it routes to, START opts back
 * in. A message that routes nowhere is dropped; one the carrier delivers twice is filed once.
 */
export async function receiveSms(
  context: TelephonyContext,
  message: { from: string; to: string; body: string; carrierMessageId: string | null },
): Promise<SmsRow | null> {
  if (message.carrierMessageId) {
    const seen = await findSmsByCarrierId(context.prisma, message.carrierMessageId);
    if (seen) {
      // A redelivery: finish what the first delivery may not have (the opt-out). It is idempotent, so a
      // STOP is never lost to a failure between filing the message and acting on it; the message's event
      // was recorded with it.
      await applyConsent(context, await routeInbound(context, message.to, message.from), message);
      return seen;
    }
  }
  const conversations = await routeInbound(context, message.to, message.from);
  const latest = conversations[0];
  if (!latest) {
    context.logger.info({ to: message.to }, 'inbound SMS to an unrouted number dropped');
    return null;
  }
  const row = await withEvents(context, async (tx, events) => {
    const created = await createInboundSms(tx, latest.orgId, {
      from: message.from,
      to: message.to,
      body: message.body,
      segments: smsSegments(message.body || ' '),
      carrierMessageId: message.carrierMessageId,
      leadId: latest.leadId,
      workspaceId: latest.workspaceId,
    });
    recordSmsEvent(events, 'sms.received', created);
    return created;
  });
  await applyConsent(context, conversations, message);
  return row;
}

/** STOP (and its synonyms) opts the sender out for every organization it routes to; START opts back in. */
async function applyConsent(
  context: TelephonyContext,
  conversations: Array<{ orgId: string }>,
  message: { from: string; body: string },
): Promise<void> {
  if (isOptOut(message.body)) {
    for (const conversation of conversations) await optOutBySms(context, conversation.orgId, message.from, message.body);
  } else if (isOptIn(message.body)) {
    for (const conversation of conversations) await optInBySms(context, conversation.orgId, message.from);
  }
}
