import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListProjectsQuery } from '@voice/proto';
import { toProject } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { ProjectStatus } from '../generated/prisma/enums.js';

export async function listProjects(prisma: PrismaClient, orgId: string, query: ListProjectsQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.project.findMany({
    where: {
      orgId,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.lead_id ? { leadId: filters.lead_id } : {}),
      ...(filters.workspace_id ? { workspaceId: filters.workspace_id } : {}),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toProject);
}

export async function findProject(prisma: Prisma.TransactionClient, orgId: string, id: string) {
  const row = await prisma.project.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('project', 'id');
  return row;
}

export async function insertProject(prisma: PrismaClient, orgId: string, data: Omit<Prisma.ProjectUncheckedCreateInput, 'orgId'>) {
  return prisma.project.create({ data: { ...data, orgId } });
}

/** Changes a project only while it is in one of `fromStatuses` (one statement); null otherwise. */
export async function updateProjectIn(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  fromStatuses: ProjectStatus[],
  data: Prisma.ProjectUncheckedUpdateManyInput,
) {
  const { count } = await prisma.project.updateMany({ where: { orgId, id, status: { in: fromStatuses } }, data });
  if (count === 0) return null;
  return findProject(prisma, orgId, id);
}

export async function deleteProjectRow(prisma: PrismaClient, orgId: string, id: string) {
  const { count } = await prisma.project.deleteMany({ where: { orgId, id } });
  if (count === 0) throw notFound('project', 'id');
}
