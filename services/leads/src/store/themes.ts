import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListThemesQuery } from '@voice/proto';
import { toTheme } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

export async function listThemes(prisma: PrismaClient, orgId: string, query: ListThemesQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.theme.findMany({ where: { orgId, ...afterPosition(position) }, orderBy: keysetOrder, take: limit + 1 });
  return toPage(rows, limit, filters, toTheme);
}

export async function findTheme(prisma: PrismaClient, orgId: string, id: string) {
  const row = await prisma.theme.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('theme', 'id');
  return row;
}

/**
 * Serializes the organization's default-theme changes for the rest of the transaction, so two themes made
 * default at the same moment cannot both stay default.
 */
async function lockDefaultTheme(tx: Prisma.TransactionClient, orgId: string) {
  await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${`leads.default_theme:${orgId}`}))) AS lock`;
}

/** Writes a theme; when it becomes the organization default, the previous default stops being one, atomically. */
export async function insertTheme(prisma: PrismaClient, orgId: string, data: Omit<Prisma.ThemeUncheckedCreateInput, 'orgId'>) {
  return prisma.$transaction(async (tx) => {
    if (data.isDefault) {
      await lockDefaultTheme(tx, orgId);
      await tx.theme.updateMany({ where: { orgId, isDefault: true }, data: { isDefault: false } });
    }
    return tx.theme.create({ data: { ...data, orgId } });
  });
}

export async function updateThemeRow(prisma: PrismaClient, orgId: string, id: string, data: Prisma.ThemeUncheckedUpdateManyInput) {
  return prisma.$transaction(async (tx) => {
    if (data.isDefault === true)
      await tx.theme.updateMany({ where: { orgId, isDefault: true, id: { not: id } }, data: { isDefault: false } });
    const { count } = await tx.theme.updateMany({ where: { orgId, id }, data });
    if (count === 0) throw notFound('theme', 'id');
    const row = await tx.theme.findFirst({ where: { orgId, id } });
    if (!row) throw notFound('theme', 'id');
    return row;
  });
}

export async function deleteThemeRow(prisma: PrismaClient, orgId: string, id: string) {
  const { count } = await prisma.theme.deleteMany({ where: { orgId, id } });
  if (count === 0) throw notFound('theme', 'id');
}
