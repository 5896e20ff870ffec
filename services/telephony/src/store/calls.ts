import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListCallsQuery } from '@voice/proto';
import { toCall, toCallListItem } from '../domain/call-records.js';
import type { PrismaClient } from '../generated/prisma/client.js';

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
      ...(filters.created_after || filters.created_before
        ? {
            createdAt: {
              ...(filters.created_after ? { gte: new Date(filters.created_after) } : {}),
              ...(filters.created_before ? { lt: new Date(filters.created_before) } : {}),
            },
          }
        : {}),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toCallListItem);
}

export async function getCall(prisma: PrismaClient, orgId: string, id: string) {
  const row = await prisma.call.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('call', 'id');
  return toCall(row);
}
