import { afterPosition, createdBetween, decodeCursor, keysetOrder, newId, notFound, toPage } from '@voice/kit';
import {
  type CallOutcome,
  type CallStats,
  type CallStatsQuery,
  type CallStatus,
  callOutcomes,
  callStatuses,
  type ListCallsQuery,
  type QueueCallInput,
} from '@voice/proto';
import { toCall, toCallListItem } from '../domain/call-records.js';
import type { Call as CallRow, Prisma, PrismaClient } from '../generated/prisma/client.js';

export type { CallRow };

/** Calls of one organization, newest first, by keyset. Every query takes the organization first. */
export async function listCalls(prisma: PrismaClient, orgId: string, query: ListCallsQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.call.findMany({
    where: {
      orgId,
      ...(filters.direction ? { direction: filters.direction } : {}),
      ...(filters.outcome ? { outcome: filters.outcome } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.lead_id ? { leadId: filters.lead_id } : {}),
      ...createdBetween(filters.created_after, filters.created_before),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toCallListItem);
}

export async function findCallRow(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<CallRow> {
  const row = await prisma.call.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('call', 'id');
  return row;
}

export async function getCall(prisma: PrismaClient, orgId: string, id: string) {
  return toCall(await findCallRow(prisma, orgId, id));
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

export async function callStats(prisma: PrismaClient, orgId: string, query: CallStatsQuery, now = new Date()): Promise<CallStats> {
  const before = query.created_before ? new Date(query.created_before) : now;
  const after = query.created_after ? new Date(query.created_after) : new Date(before.getTime() - 30 * 24 * 60 * 60 * 1000);
  const groups = await prisma.call.groupBy({
    by: ['direction', 'outcome', 'status'],
    where: {
      orgId,
      createdAt: { gte: after, lt: before },
      ...(query.workspace_id ? { workspaceId: query.workspace_id } : {}),
      ...(query.lead_id ? { leadId: query.lead_id } : {}),
    },
    _count: { _all: true },
    _sum: { durationSeconds: true },
  });
  const byOutcome = Object.fromEntries([...callOutcomes, 'none'].map((key) => [key, 0])) as Record<CallOutcome | 'none', number>;
  const byStatus = Object.fromEntries(callStatuses.map((key) => [key, 0])) as Record<CallStatus, number>;
  const byDirection = { inbound: 0, outbound: 0 };
  let total = 0;
  let totalDuration = 0;
  for (const group of groups) {
    const count = group._count._all;
    total += count;
    totalDuration += group._sum.durationSeconds ?? 0;
    byDirection[group.direction] += count;
    byOutcome[group.outcome ?? 'none'] += count;
    byStatus[group.status] += count;
  }
  return {
    object: 'call_stats',
    created_after: after.toISOString(),
    created_before: before.toISOString(),
    total,
    by_direction: byDirection,
    by_outcome: byOutcome,
    by_status: byStatus,
    total_duration_seconds: totalDuration,
  };
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
  input: { from: string; to: string; carrierCallId: string; leadId: string | null; workspaceId: string | null },
): Promise<CallRow> {
  return prisma.call.create({
    data: {
      id: newId('call'),
      orgId,
      workspaceId: input.workspaceId,
      direction: 'inbound',
      fromNumber: input.from,
      toNumber: input.to,
      leadId: input.leadId,
      status: 'ringing',
      source: 'inbound',
      carrierCallId: input.carrierCallId,
    },
  });
}
