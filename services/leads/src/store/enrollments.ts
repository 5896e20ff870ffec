import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListEnrollmentsQuery } from '@voice/proto';
import { toEnrollment } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

export async function listEnrollments(
  prisma: PrismaClient,
  orgId: string,
  query: ListEnrollmentsQuery & { sequence_id?: string | undefined },
) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.enrollment.findMany({
    where: {
      orgId,
      ...(filters.sequence_id ? { sequenceId: filters.sequence_id } : {}),
      ...(filters.lead_id ? { leadId: filters.lead_id } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toEnrollment);
}

export async function latestEnrollmentsOfLead(prisma: PrismaClient, orgId: string, leadId: string, limit: number) {
  return prisma.enrollment.findMany({ where: { orgId, leadId }, orderBy: keysetOrder, take: limit });
}

export async function findEnrollment(
  prisma: Prisma.TransactionClient,
  orgId: string,
  where: { id?: string; sequenceId?: string; leadId?: string; status?: 'active' },
  param: string,
) {
  const row = await prisma.enrollment.findFirst({ where: { ...where, orgId }, orderBy: keysetOrder });
  if (!row) throw notFound('enrollment', param);
  return row;
}

/** The enrollment with what running its next step needs; null when it is gone. */
export async function findEnrollmentForRun(prisma: PrismaClient, orgId: string, id: string) {
  return prisma.enrollment.findFirst({ where: { orgId, id }, include: { sequence: true, lead: true } });
}

/**
 * Enrolls leads in a sequence: one new active enrollment per lead that has none in it yet. The unique
 * (sequence, lead, active_slot) index makes a concurrent duplicate impossible; such a row is skipped.
 * Returns the active enrollment of every requested lead, new or existing, and which ones are new.
 */
export async function insertEnrollments(
  prisma: Prisma.TransactionClient,
  orgId: string,
  sequenceId: string,
  rows: Array<Omit<Prisma.EnrollmentCreateManyInput, 'orgId' | 'sequenceId'>>,
) {
  const leadIds = rows.map((row) => row.leadId);
  const created = await prisma.enrollment.createManyAndReturn({
    data: rows.map((row) => ({ ...row, orgId, sequenceId })),
    skipDuplicates: true,
  });
  const active = await prisma.enrollment.findMany({ where: { orgId, sequenceId, leadId: { in: leadIds }, status: 'active' } });
  return { created, active };
}

/**
 * Moves an enrollment on from `fromStep`, only if it is still active and still at that step: a stopped
 * enrollment, or a step another attempt already recorded, changes nothing (returns null).
 */
export async function advanceEnrollment(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  fromStep: number,
  data: Prisma.EnrollmentUncheckedUpdateManyInput,
) {
  const { count } = await prisma.enrollment.updateMany({ where: { orgId, id, status: 'active', currentStep: fromStep }, data });
  if (count === 0) return null;
  return prisma.enrollment.findFirst({ where: { orgId, id } });
}

export async function stopEnrollmentRow(prisma: Prisma.TransactionClient, orgId: string, id: string, reason: string, at: Date) {
  const { count } = await prisma.enrollment.updateMany({
    where: { orgId, id, status: 'active' },
    data: { status: 'stopped', activeSlot: null, stoppedReason: reason, stoppedAt: at, nextStepAt: null },
  });
  return count > 0;
}

/**
 * Active enrollments whose next step should have run before `dueBefore`, across organizations: the
 * sweeper's one system-wide query (it only reads ids to put their jobs back, never tenant data).
 */
export async function findOverdueEnrollments(prisma: PrismaClient, dueBefore: Date, limit: number) {
  return prisma.enrollment.findMany({
    where: { status: 'active', nextStepAt: { lt: dueBefore } },
    select: { id: true, orgId: true, currentStep: true },
    orderBy: { nextStepAt: 'asc' },
    take: limit,
  });
}
