import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListWorkspacesQuery } from '@voice/proto';
import { toWorkspace } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

export async function listWorkspaces(prisma: PrismaClient, orgId: string, query: ListWorkspacesQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.workspace.findMany({ where: { orgId, ...afterPosition(position) }, orderBy: keysetOrder, take: limit + 1 });
  return toPage(rows, limit, filters, toWorkspace);
}

export async function findWorkspace(prisma: PrismaClient, orgId: string, id: string) {
  const row = await prisma.workspace.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('workspace', 'id');
  return row;
}

export async function insertWorkspace(prisma: PrismaClient, orgId: string, data: Omit<Prisma.WorkspaceUncheckedCreateInput, 'orgId'>) {
  return prisma.workspace.create({ data: { ...data, orgId } });
}

export async function updateWorkspaceRow(prisma: PrismaClient, orgId: string, id: string, data: Prisma.WorkspaceUncheckedUpdateManyInput) {
  const { count } = await prisma.workspace.updateMany({ where: { orgId, id }, data });
  if (count === 0) throw notFound('workspace', 'id');
  return findWorkspace(prisma, orgId, id);
}

export async function deleteWorkspaceRow(prisma: PrismaClient, orgId: string, id: string) {
  const { count } = await prisma.workspace.deleteMany({ where: { orgId, id } });
  if (count === 0) throw notFound('workspace', 'id');
}
