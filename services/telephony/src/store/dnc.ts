import { decodeTwoWayCursor, keysetWindow, newId, notFound, toTwoWayPage } from '@voice/kit';
import type { DncChannel, ListDncQuery } from '@voice/proto';
import { toDncEntry } from '../domain/records.js';
import type { DncEntry as DncRow, DncSource, Prisma, PrismaClient } from '../generated/prisma/client.js';

export type { DncRow };

/**
 * `search`: the number contains its digits (when it has any), or the reason contains it, in any case.
 * A DNC list is thousands of entries, not millions: the (org, created_at) index and a filter suffice.
 */
function dncSearch(search: string | undefined) {
  if (!search) return {};
  const digits = search.replace(/[^0-9]/g, '');
  return {
    OR: [...(digits.length > 0 ? [{ phone: { contains: digits } }] : []), { reason: { contains: search, mode: 'insensitive' as const } }],
  };
}

export async function listDnc(prisma: PrismaClient, orgId: string, query: ListDncQuery) {
  const { limit, cursor: token, ...filters } = query;
  const cursor = decodeTwoWayCursor(token, filters);
  const window = keysetWindow(cursor);
  const rows = await prisma.dncEntry.findMany({
    where: {
      orgId,
      ...(filters.phone ? { phone: filters.phone } : {}),
      ...(filters.channel ? { channel: filters.channel } : {}),
      ...(filters.source ? { source: filters.source } : {}),
      AND: [dncSearch(filters.search), window.where],
    },
    orderBy: window.orderBy,
    take: limit + 1,
  });
  return toTwoWayPage(rows, limit, filters, cursor, toDncEntry);
}

/** One entry of the organization; another organization's id is as unknown as one that never existed. */
export async function findDncRow(prisma: PrismaClient, orgId: string, id: string): Promise<DncRow> {
  const row = await prisma.dncEntry.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('do-not-call entry', 'id');
  return row;
}

export async function entriesForPhone(prisma: PrismaClient, orgId: string, phone: string): Promise<DncRow[]> {
  return prisma.dncEntry.findMany({ where: { orgId, phone }, orderBy: { createdAt: 'asc' } });
}

/** Inserts the entry unless the number is already listed for that channel; says which happened. */
export async function insertDnc(
  prisma: Prisma.TransactionClient,
  orgId: string,
  entry: { phone: string; channel: DncChannel; reason: string | null; source: DncSource; createdBy: string | null },
): Promise<{ row: DncRow; created: boolean }> {
  // ON CONFLICT DO NOTHING: two concurrent adds of one number make one entry, and neither fails.
  const { count } = await prisma.dncEntry.createMany({
    data: [
      {
        id: newId('dnc'),
        orgId,
        phone: entry.phone,
        channel: entry.channel,
        reason: entry.reason,
        source: entry.source,
        createdBy: entry.createdBy,
      },
    ],
    skipDuplicates: true,
  });
  const row = await prisma.dncEntry.findFirst({ where: { orgId, phone: entry.phone, channel: entry.channel } });
  if (!row) throw notFound('do-not-call entry');
  return { row, created: count === 1 };
}

export async function deleteDnc(prisma: Prisma.TransactionClient, orgId: string, id: string): Promise<DncRow> {
  const row = await prisma.dncEntry.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('do-not-call entry', 'id');
  const { count } = await prisma.dncEntry.deleteMany({ where: { orgId, id } });
  if (count === 0) throw notFound('do-not-call entry', 'id');
  return row;
}

export async function deleteDncBySource(
  prisma: Prisma.TransactionClient,
  orgId: string,
  phone: string,
  source: DncSource,
): Promise<DncRow[]> {
  const rows = await prisma.dncEntry.findMany({ where: { orgId, phone, source } });
  if (rows.length > 0) await prisma.dncEntry.deleteMany({ where: { orgId, id: { in: rows.map((row) => row.id) } } });
  return rows;
}
