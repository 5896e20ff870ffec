import { createdBetween, decodeTwoWayCursor, keysetWindow, newId, notFound, toTwoWayPage } from '@voice/kit';
import { type ListSmsQuery, type SendSmsInput, type SmsStatus, testTwinOf } from '@voice/proto';
import { toSms } from '../domain/records.js';
import type { Prisma, PrismaClient, Sms as SmsRow } from '../generated/prisma/client.js';
import { numberContains } from './calls.js';

export type { SmsRow };

/**
 * Messages of one organization, newest first, by keyset both ways. With `phone`, the conversation with
 * that number (from or to it: both directions), read from the (org, from) and (org, to) indexes.
 */
export async function listSms(prisma: PrismaClient, orgId: string, query: ListSmsQuery) {
  const { limit, cursor: token, ...filters } = query;
  const cursor = decodeTwoWayCursor(token, filters);
  const window = keysetWindow(cursor);
  const rows = await prisma.sms.findMany({
    where: {
      orgId,
      ...(filters.direction ? { direction: filters.direction } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.lead_id ? { leadId: filters.lead_id } : {}),
      ...createdBetween(filters.created_after, filters.created_before),
      AND: [
        filters.phone ? { OR: [{ fromNumber: filters.phone }, { toNumber: filters.phone }] } : {},
        numberContains(filters.number),
        window.where,
      ],
    },
    orderBy: window.orderBy,
    take: limit + 1,
  });
  return toTwoWayPage(rows, limit, filters, cursor, toSms);
}

export async function findSmsRow(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<SmsRow> {
  const row = await prisma.sms.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('sms', 'id');
  return row;
}

export async function createOutboundSms(
  prisma: PrismaClient,
  orgId: string,
  input: Omit<SendSmsInput, 'idempotency_key'> & { from: string; segments: number },
): Promise<SmsRow> {
  return prisma.sms.create({
    data: {
      id: newId('sms'),
      orgId,
      workspaceId: input.workspace_id ?? null,
      direction: 'outbound',
      fromNumber: input.from,
      toNumber: input.to,
      body: input.body,
      segments: input.segments,
      status: 'queued',
      leadId: input.lead_id ?? null,
      source: input.source,
      metadata: input.metadata ?? {},
    },
  });
}

export async function createInboundSms(
  prisma: Prisma.TransactionClient,
  orgId: string,
  input: {
    /** Given when the carrier id is derived from it (the sandbox's). */
    id?: string;
    from: string;
    to: string;
    body: string;
    segments: number;
    carrierMessageId: string | null;
    leadId: string | null;
    workspaceId: string | null;
  },
): Promise<SmsRow> {
  return prisma.sms.create({
    data: {
      id: input.id ?? newId('sms'),
      orgId,
      workspaceId: input.workspaceId,
      direction: 'inbound',
      fromNumber: input.from,
      toNumber: input.to,
      body: input.body,
      segments: input.segments,
      status: 'received',
      leadId: input.leadId,
      source: 'inbound',
      carrierMessageId: input.carrierMessageId,
      sentAt: new Date(),
    },
  });
}

/** Conditional status change, like transitionCall: null when the message was not in one of `from`. */
export async function transitionSms(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  from: readonly SmsStatus[],
  data: Prisma.SmsUpdateManyMutationInput,
): Promise<SmsRow | null> {
  const { count } = await prisma.sms.updateMany({ where: { orgId, id, status: { in: [...from] } }, data });
  if (count === 0) return null;
  return prisma.sms.findFirst({ where: { orgId, id } });
}

/**
 * What a send established (the carrier's id, when, the cost) for a message whose status already moved past
 * `sent`: a delivery report can overtake the send's own record. Written once; null when already written.
 */
export async function recordSendFacts(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  data: Prisma.SmsUpdateManyMutationInput,
): Promise<SmsRow | null> {
  const { count } = await prisma.sms.updateMany({ where: { orgId, id, sentAt: null }, data });
  if (count === 0) return null;
  return prisma.sms.findFirst({ where: { orgId, id } });
}

export async function staleQueuedSms(prisma: PrismaClient, olderThan: Date, limit = 500) {
  // Across organizations by design: the dialer's own housekeeping.
  return prisma.sms.findMany({
    where: { status: 'queued', createdAt: { lt: olderThan } },
    select: { id: true, orgId: true },
    orderBy: { createdAt: 'asc' },
    take: limit,
  });
}

/** The message a carrier callback is about, by our id from the callback URL (see findCallForCarrier). */
export async function findSmsForCarrier(prisma: PrismaClient, smsId: string): Promise<SmsRow | null> {
  return prisma.sms.findUnique({ where: { id: smsId } });
}

/** A message by its carrier id: a carrier retrying a webhook must not file the message twice. */
export async function findSmsByCarrierId(prisma: PrismaClient, carrierMessageId: string): Promise<SmsRow | null> {
  return prisma.sms.findFirst({ where: { carrierMessageId } });
}

/** The id prefix of every test twin and of no live organization (proto's mode.ts: `org_test_…`). */
export const testTwinIdPrefix = testTwinOf('org_');

/**
 * The organizations that contacted `theirNumber` from `ourNumber`, most recent first: an inbound message
 * to a shared number belongs to the conversations it answers. Each with the lead of its last contact.
 * `live`: live organizations only, for real inbound traffic, which never belongs to a test twin (a twin's
 * contacts were simulated: nobody real was called or written to). `{ orgId }`: that organization's alone,
 * for traffic the simulator makes up for a test twin.
 */
export async function conversationsBetween(
  prisma: PrismaClient,
  ourNumber: string,
  theirNumber: string,
  among: 'live' | { orgId: string },
): Promise<Array<{ orgId: string; leadId: string | null; workspaceId: string | null }>> {
  const where = {
    fromNumber: ourNumber,
    toNumber: theirNumber,
    direction: 'outbound' as const,
    ...(among === 'live' ? { NOT: { orgId: { startsWith: testTwinIdPrefix } } } : { orgId: among.orgId }),
  };
  const select = { orgId: true, leadId: true, workspaceId: true, createdAt: true };
  const [messages, calls] = await Promise.all([
    prisma.sms.findMany({ where, select, orderBy: { createdAt: 'desc' }, take: 50 }),
    prisma.call.findMany({ where, select, orderBy: { createdAt: 'desc' }, take: 50 }),
  ]);
  const latestByOrg = new Map<string, { orgId: string; leadId: string | null; workspaceId: string | null; createdAt: Date }>();
  for (const contact of [...messages, ...calls].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())) {
    if (!latestByOrg.has(contact.orgId)) latestByOrg.set(contact.orgId, contact);
  }
  return [...latestByOrg.values()].map(({ orgId, leadId, workspaceId }) => ({ orgId, leadId, workspaceId }));
}
