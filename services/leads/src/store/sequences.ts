import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListSequencesQuery } from '@voice/proto';
import { toSequence } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

export async function listSequences(prisma: PrismaClient, orgId: string, query: ListSequencesQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.sequence.findMany({
    where: { orgId, ...(filters.workspace_id ? { workspaceId: filters.workspace_id } : {}), ...afterPosition(position) },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toSequence);
}

export async function findSequence(prisma: PrismaClient, orgId: string, id: string, param = 'id') {
  const row = await prisma.sequence.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('sequence', param);
  return row;
}

export async function insertSequence(prisma: PrismaClient, orgId: string, data: Omit<Prisma.SequenceUncheckedCreateInput, 'orgId'>) {
  return prisma.sequence.create({ data: { ...data, orgId } });
}

/** Changes a sequence. Active enrollments keep the steps they started with. */
export async function updateSequenceRow(prisma: PrismaClient, orgId: string, id: string, data: Prisma.SequenceUncheckedUpdateManyInput) {
  const { count } = await prisma.sequence.updateMany({ where: { orgId, id }, data });
  if (count === 0) throw notFound('sequence', 'id');
  return findSequence(prisma, orgId, id);
}

export async function deleteSequenceRow(prisma: PrismaClient, orgId: string, id: string, onActiveEnrollments: () => Error) {
  await prisma.$transaction(async (tx) => {
    // Lock the row first, so no enrollment starts between the check and the delete.
    const { count } = await tx.sequence.updateMany({ where: { orgId, id }, data: { updatedAt: new Date() } });
    if (count === 0) throw notFound('sequence', 'id');
    const active = await tx.enrollment.count({ where: { orgId, sequenceId: id, status: 'active' } });
    if (active > 0) throw onActiveEnrollments();
    await tx.sequence.deleteMany({ where: { orgId, id } });
  });
}
