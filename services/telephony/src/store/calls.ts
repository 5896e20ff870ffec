import { createdBetween, decodeTwoWayCursor, keysetWindow, newId, notFound, toTwoWayPage } from '@voice/kit';
import type { Call, CallStatus, CallStatusChange, ListCallsQuery, QueueCallInput } from '@voice/proto';
import { toCall, toCallListItem } from '../domain/call-records.js';
import type { Call as CallRow, Prisma, PrismaClient } from '../generated/prisma/client.js';

export type { CallRow };

/**
 * "The from or to number contains these digits" on a table with a trigram index on each (messages).
 * Wrapped in AND, like the keyset bound, so it never collides with another OR.
 */
export function numberContains(number: string | undefined) {
  if (!number) return {};
  return { AND: [{ OR: [{ fromNumber: { contains: number } }, { toNumber: { contains: number } }] }] };
}

/**
 * The part of a `number` search the trigram index is asked for: its last 7 digits. Numbers share their
 * leading digits (country and area code), whose trigrams are in nearly every row; the subscriber number's
 * are rare, so a long search reads short posting lists (10 digits on 1M calls: ~1 ms instead of ~35).
 */
export const indexedSearchDigits = 7;

/**
 * "The from or to number contains these digits" (a `number` search): the `numbers` column (both numbers)
 * must contain the search's tail, which its trigram index answers, and from or to the whole search, checked
 * on the rows found (from and to have no index of their own, so the planner cannot put the common
 * trigrams back into the index scan). Wrapped in AND, like the keyset bound, so it never collides with
 * another OR.
 */
export function callNumberContains(number: string | undefined) {
  if (!number) return {};
  const tail = number.length > indexedSearchDigits ? number.slice(-indexedSearchDigits) : number;
  return {
    AND: [{ numbers: { contains: tail } }, { OR: [{ fromNumber: { contains: number } }, { toNumber: { contains: number } }] }],
  };
}

/**
 * Calls of one organization, newest first, by keyset in both directions (Older and Newer). Every query
 * takes the organization first. Each filter alone has an index ending in (created_at desc, id desc);
 * combined, Postgres walks the most selective one and checks the rest.
 */
export async function listCalls(prisma: PrismaClient, orgId: string, query: ListCallsQuery) {
  const { limit, cursor: token, ...filters } = query;
  const cursor = decodeTwoWayCursor(token, filters);
  const window = keysetWindow(cursor);
  const rows = await prisma.call.findMany({
    where: {
      orgId,
      ...(filters.direction ? { direction: filters.direction } : {}),
      ...(filters.outcome ? { outcome: filters.outcome } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.lead_id ? { leadId: filters.lead_id } : {}),
      ...createdBetween(filters.created_after, filters.created_before),
      AND: [callNumberContains(filters.number), window.where],
    },
    orderBy: window.orderBy,
    take: limit + 1,
    omit: { transcript: true, transcriptTurns: true, summary: true, numbers: true },
  });
  return toTwoWayPage(rows, limit, filters, cursor, toCallListItem);
}

export async function findCallRow(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<CallRow> {
  const row = await prisma.call.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('call', 'id');
  return row;
}

/** A call's timeline: its status changes in the order they happened (a call only moves forward). */
async function timelineOf(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<CallStatusChange[]> {
  const changes = await prisma.callStatusChange.findMany({
    where: { callId: id, orgId },
    orderBy: { seq: 'asc' },
    select: { status: true, at: true },
  });
  return changes.map((change) => ({ status: change.status, at: change.at.toISOString() }));
}

/** A call as the API gives it, from its row (inside a transaction too: its timeline is written there). */
export async function readCall(prisma: Prisma.TransactionClient, row: CallRow): Promise<Call> {
  return toCall(row, await timelineOf(prisma, row.orgId, row.id));
}

/** A call's page: the row and its timeline, read side by side. */
export async function getCall(prisma: PrismaClient, orgId: string, id: string): Promise<Call> {
  const [row, timeline] = await Promise.all([findCallRow(prisma, orgId, id), timelineOf(prisma, orgId, id)]);
  return toCall(row, timeline);
}

export async function createOutboundCall(
  prisma: Prisma.TransactionClient,
  orgId: string,
  input: Omit<QueueCallInput, 'idempotency_key'> & { from: string },
): Promise<CallRow> {
  return prisma.call.create({
    data: {
      id: newId('call'),
      orgId,
      workspaceId: input.workspace_id ?? null,
      direction: 'outbound',
      fromNumber: input.from,
      toNumber: input.to,
      leadId: input.lead_id ?? null,
      status: 'queued',
      source: input.source,
      metadata: input.metadata ?? {},
    },
  });
}

/**
 * Moves a call to a new status only from one of `from`, in one conditional UPDATE, so concurrent
 * callbacks, cancels and dialer retries cannot both win. Returns the row after the change, or null when
 * the call was not in one of those statuses.
 */
export async function transitionCall(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  from: readonly CallStatus[],
  data: Prisma.CallUpdateManyMutationInput,
): Promise<CallRow | null> {
  const { count } = await prisma.call.updateMany({ where: { orgId, id, status: { in: [...from] } }, data });
  if (count === 0) return null;
  return prisma.call.findFirst({ where: { orgId, id } });
}

export async function updateCall(prisma: PrismaClient, orgId: string, id: string, data: Prisma.CallUpdateManyMutationInput) {
  await prisma.call.updateMany({ where: { orgId, id }, data });
}

/**
 * Claims a queued, not yet placed call for one dial attempt. Null when it was canceled or already placed.
 */
export async function claimForDial(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<CallRow | null> {
  const { count } = await prisma.call.updateMany({
    where: { orgId, id, status: 'queued', carrierCallId: null },
    data: { dialAttempts: { increment: 1 } },
  });
  if (count === 0) return null;
  return prisma.call.findFirst({ where: { orgId, id } });
}

/** Queued calls that no dialer job may hold any more; the sweeper enqueues them again (by call id). */
export async function staleQueuedCalls(prisma: PrismaClient, olderThan: Date, limit = 500) {
  // Across organizations by design: this is the dialer's own housekeeping, not a tenant's query.
  return prisma.call.findMany({
    where: { status: 'queued', carrierCallId: null, createdAt: { lt: olderThan } },
    select: { id: true, orgId: true },
    orderBy: { createdAt: 'asc' },
    take: limit,
  });
}

/**
 * Calls with no change for longer than their status allows: placed or ringing since `ringingBefore`, in
 * progress since `inProgressBefore`. Across organizations by design, like `staleQueuedCalls`.
 */
export async function stuckCalls(prisma: PrismaClient, cutoffs: { ringingBefore: Date; inProgressBefore: Date }, limit = 500) {
  return prisma.call.findMany({
    where: {
      OR: [
        { status: 'queued', carrierCallId: { not: null }, updatedAt: { lt: cutoffs.ringingBefore } },
        { status: 'ringing', updatedAt: { lt: cutoffs.ringingBefore } },
        { status: 'in_progress', updatedAt: { lt: cutoffs.inProgressBefore } },
      ],
    },
    select: { id: true, orgId: true, status: true, updatedAt: true },
    orderBy: { updatedAt: 'asc' },
    take: limit,
  });
}

/**
 * Moves a call only if it is still exactly as it was read (status and last change), so a carrier report
 * or another replica's sweep that got there first wins.
 */
export async function transitionUnchangedCall(
  prisma: Prisma.TransactionClient,
  orgId: string,
  seen: { id: string; status: CallStatus; updatedAt: Date },
  data: Prisma.CallUpdateManyMutationInput,
): Promise<CallRow | null> {
  const { count } = await prisma.call.updateMany({ where: { orgId, id: seen.id, status: seen.status, updatedAt: seen.updatedAt }, data });
  if (count === 0) return null;
  return prisma.call.findFirst({ where: { orgId, id: seen.id } });
}

/**
 * The call a carrier callback is about. Carriers know our call id (it is in the callback URL), not the
 * organization, so this is the one lookup by id alone; everything after it is scoped to the row's org.
 */
export async function findCallForCarrier(prisma: PrismaClient, callId: string): Promise<CallRow | null> {
  return prisma.call.findUnique({ where: { id: callId } });
}

/** The call with this carrier id (Twilio CallSid): inbound calls are known to the carrier by it alone. */
export async function findCallByCarrierId(prisma: PrismaClient, carrierCallId: string): Promise<CallRow | null> {
  return prisma.call.findFirst({ where: { carrierCallId } });
}

export async function createInboundCall(
  prisma: Prisma.TransactionClient,
  orgId: string,
  input: {
    /** Given when the carrier id is derived from it (the sandbox's). */
    id?: string;
    from: string;
    to: string;
    carrierCallId: string;
    leadId: string | null;
    workspaceId: string | null;
    metadata?: Prisma.InputJsonObject;
  },
): Promise<CallRow> {
  return prisma.call.create({
    data: {
      id: input.id ?? newId('call'),
      orgId,
      workspaceId: input.workspaceId,
      direction: 'inbound',
      fromNumber: input.from,
      toNumber: input.to,
      leadId: input.leadId,
      status: 'ringing',
      source: 'inbound',
      carrierCallId: input.carrierCallId,
      ...(input.metadata ? { metadata: input.metadata } : {}),
    },
  });
}
