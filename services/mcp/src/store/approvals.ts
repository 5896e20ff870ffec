import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import {
  type Approval,
  type ApprovalResolver,
  type ApprovalStatus,
  type Identity,
  type ListApprovalsQuery,
  livemodeOf,
} from '@voice/proto';
import { z } from 'zod';
import type { Approval as ApprovalRow, Prisma, PrismaClient } from '../generated/prisma/client.js';

export type { ApprovalRow };

/** Where one approval request was sent, with what is needed to edit that message later. */
export const deliverySchema = z.object({
  channel: z.enum(['telegram', 'slack']),
  status: z.enum(['sent', 'failed']),
  error: z.string().nullable(),
  chat_id: z.string().optional(),
  message_id: z.number().int().optional(),
  slack_channel: z.string().optional(),
  ts: z.string().optional(),
});
export type Delivery = z.infer<typeof deliverySchema>;

export function deliveriesOf(row: ApprovalRow): Delivery[] {
  const parsed = z.array(deliverySchema).safeParse(row.deliveries);
  return parsed.success ? parsed.data : [];
}

/** The requester's identity as stored: who the action runs as once approved. */
export const requesterSchema = z.object({
  org_id: z.string(),
  key_id: z.string(),
  scope: z.enum(['read', 'read-write']),
  plan: z.enum(['lite', 'starter', 'pro', 'enterprise']),
  monthly_used: z.number().int().nonnegative(),
  monthly_quota: z.number().int().nonnegative(),
});
export type Requester = z.infer<typeof requesterSchema>;

/** A pending approval whose time has passed is expired, whether or not the sweep has marked it yet. */
export function effectiveStatus(row: ApprovalRow, now: Date): ApprovalStatus {
  return row.status === 'pending' && row.expiresAt <= now ? 'expired' : row.status;
}

export function toApproval(row: ApprovalRow, now: Date): Approval {
  return {
    id: row.id,
    object: 'approval',
    tool: row.tool as Approval['tool'],
    arguments: (row.arguments ?? {}) as Record<string, unknown>,
    arguments_digest: row.argumentsDigest,
    summary: row.summary,
    // Whose data it is follows from the organization's id alone (a test twin's is test data): no column.
    livemode: livemodeOf(row.orgId),
    status: effectiveStatus(row, now),
    requested_by: row.requestedBy,
    bound_user_id: row.boundUserId,
    expires_at: row.expiresAt.toISOString(),
    resolved_at: row.resolvedAt?.toISOString() ?? null,
    resolved_by: row.resolvedBy,
    resolved_via: row.resolvedVia,
    result: (row.result ?? null) as Record<string, unknown> | null,
    error: row.errorCode ? { code: row.errorCode as NonNullable<Approval['error']>['code'], message: row.errorMessage ?? '' } : null,
    deliveries: deliveriesOf(row).map(({ channel, status, error }) => ({ channel, status, error })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function insertApproval(
  prisma: PrismaClient,
  orgId: string,
  approval: {
    id: string;
    tool: string;
    arguments: Record<string, unknown>;
    argumentsDigest: string;
    summary: string;
    requester: Omit<Identity, 'request_id'>;
    expiresAt: Date;
    boundUserId?: string;
  },
): Promise<ApprovalRow> {
  return prisma.approval.create({
    data: {
      id: approval.id,
      orgId,
      tool: approval.tool,
      arguments: approval.arguments as Prisma.InputJsonValue,
      argumentsDigest: approval.argumentsDigest,
      summary: approval.summary,
      requestedBy: approval.requester.key_id,
      requester: approval.requester as Prisma.InputJsonValue,
      expiresAt: approval.expiresAt,
      boundUserId: approval.boundUserId ?? null,
    },
  });
}

/** A pending, unexpired approval of the same action (same tool and arguments), if one is waiting. */
export async function findWaiting(
  prisma: PrismaClient,
  orgId: string,
  tool: string,
  digest: string,
  now: Date,
): Promise<ApprovalRow | null> {
  return prisma.approval.findFirst({
    where: { orgId, tool, argumentsDigest: digest, ...waitingAt(now) },
    orderBy: { createdAt: 'desc' },
  });
}

export async function findApproval(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<ApprovalRow> {
  const row = await prisma.approval.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('approval', 'approval_id');
  return row;
}

/**
 * Binds a waiting approval to the person it is about to be shown to as a URL elicitation; from then on only
 * they may decide it in the console. A new approval is bound as it is created (`ToolContext.bindApprovalTo`),
 * so this matters for one that was already waiting (the same action asked for again). Refused (null) once it
 * is decided, or when another person holds it already (an agent of another key asked for it first).
 */
export async function bindApproval(prisma: PrismaClient, orgId: string, id: string, userId: string): Promise<ApprovalRow | null> {
  const { count } = await prisma.approval.updateMany({
    where: { orgId, id, status: 'pending', OR: [{ boundUserId: null }, { boundUserId: userId }] },
    data: { boundUserId: userId },
  });
  return count === 1 ? findApproval(prisma, orgId, id) : null;
}

/**
 * Reads an approval by id alone. Only for taps from a messaging app, which carry no organization: the
 * caller must then check that the chat is linked to the approval's organization before acting.
 */
export async function findApprovalForTap(prisma: PrismaClient, id: string): Promise<ApprovalRow | null> {
  return prisma.approval.findUnique({ where: { id } });
}

/** Approvals a person may still decide: pending and not yet past their expiry (the sweep may lag). */
function waitingAt(now: Date) {
  return { status: 'pending', expiresAt: { gt: now } } satisfies Prisma.ApprovalWhereInput;
}

/** How many of the organization's approvals wait for a person (the console's navigation shows it). */
export function countWaiting(prisma: PrismaClient, orgId: string, now: Date): Promise<number> {
  return prisma.approval.count({ where: { orgId, ...waitingAt(now) } });
}

export async function listApprovals(prisma: PrismaClient, orgId: string, query: ListApprovalsQuery, now: Date) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const statusWhere: Prisma.ApprovalWhereInput =
    filters.status === undefined
      ? {}
      : filters.status === 'pending'
        ? waitingAt(now)
        : filters.status === 'expired'
          ? { OR: [{ status: 'expired' }, { status: 'pending', expiresAt: { lte: now } }] }
          : { status: filters.status };
  const rows = await prisma.approval.findMany({
    where: {
      AND: [{ orgId }, statusWhere, filters.tool ? { tool: filters.tool } : {}, afterPosition(position)],
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, (row) => toApproval(row, now));
}

export async function saveDeliveries(prisma: Prisma.TransactionClient, orgId: string, id: string, deliveries: Delivery[]): Promise<void> {
  await prisma.approval.updateMany({ where: { orgId, id }, data: { deliveries: deliveries as Prisma.InputJsonValue } });
}

/**
 * Moves an approval out of `pending` in one conditional UPDATE: of two taps (or a tap and the agent's
 * withdrawal) at the same instant, on any replicas, exactly one gets `true`. An approval past its expiry cannot be approved or rejected.
 */
export async function claimPending(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  to: 'approved' | 'rejected' | 'withdrawn',
  resolution: { by: string; via: ApprovalResolver; at: Date },
): Promise<boolean> {
  const { count } = await prisma.approval.updateMany({
    where: { orgId, id, status: 'pending', expiresAt: { gt: resolution.at } },
    data: { status: to, resolvedAt: resolution.at, resolvedBy: resolution.by, resolvedVia: resolution.via },
  });
  return count === 1;
}

/** Marks pending approvals past their expiry `expired`; returns the ones this call marked. */
export async function expireDue(
  prisma: Prisma.TransactionClient,
  now: Date,
  orgAndId?: { orgId: string; id: string },
): Promise<ApprovalRow[]> {
  const where: Prisma.ApprovalWhereInput = { status: 'pending', expiresAt: { lte: now }, ...(orgAndId ?? {}) };
  const due = await prisma.approval.findMany({ where, take: 500, orderBy: { expiresAt: 'asc' } });
  const marked: ApprovalRow[] = [];
  for (const row of due) {
    const { count } = await prisma.approval.updateMany({
      where: { id: row.id, status: 'pending' },
      data: { status: 'expired', resolvedAt: now },
    });
    if (count === 1) marked.push({ ...row, status: 'expired', resolvedAt: now });
  }
  return marked;
}

/**
 * Approvals left `approved` by a process that died while running the action: after `staleMs` they are
 * `failed` with a message that says the action may or may not have run, rather than `approved` forever.
 */
export async function failStale(prisma: Prisma.TransactionClient, now: Date, staleMs: number): Promise<ApprovalRow[]> {
  const stale = await prisma.approval.findMany({
    where: { status: 'approved', resolvedAt: { lte: new Date(now.getTime() - staleMs) } },
    take: 500,
  });
  const marked: ApprovalRow[] = [];
  for (const row of stale) {
    const message =
      'The service stopped while running the approved action; it may or may not have run. Check the record before asking again.';
    const { count } = await prisma.approval.updateMany({
      where: { id: row.id, status: 'approved' },
      data: { status: 'failed', errorCode: 'unavailable', errorMessage: message },
    });
    if (count === 1) marked.push({ ...row, status: 'failed', errorCode: 'unavailable', errorMessage: message });
  }
  return marked;
}

export async function finishExecution(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  outcome: { status: 'executed'; result: Record<string, unknown> } | { status: 'failed'; code: string; message: string },
): Promise<ApprovalRow> {
  await prisma.approval.updateMany({
    where: { orgId, id, status: 'approved' },
    data:
      outcome.status === 'executed'
        ? { status: 'executed', result: outcome.result as Prisma.InputJsonValue }
        : { status: 'failed', errorCode: outcome.code, errorMessage: outcome.message },
  });
  return findApproval(prisma, orgId, id);
}
