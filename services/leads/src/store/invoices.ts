import { afterPosition, decodeCursor, keysetOrder, notFound, toPage } from '@voice/kit';
import type { ListInvoicesQuery } from '@voice/proto';
import { toInvoice } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { InvoiceStatus } from '../generated/prisma/enums.js';

export async function listInvoices(prisma: PrismaClient, orgId: string, query: ListInvoicesQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.invoice.findMany({
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
  return toPage(rows, limit, filters, toInvoice);
}

export async function findInvoice(prisma: Prisma.TransactionClient, orgId: string, id: string) {
  const row = await prisma.invoice.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('invoice', 'id');
  return row;
}

export async function insertInvoice(prisma: PrismaClient, orgId: string, data: Omit<Prisma.InvoiceUncheckedCreateInput, 'orgId'>) {
  return prisma.invoice.create({ data: { ...data, orgId } });
}

/**
 * Changes an invoice only while it is in one of `fromStatuses`: the status check and the write are one
 * statement, so two concurrent sends cannot both succeed. Null when the invoice was not in such a status.
 */
export async function updateInvoiceIn(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  fromStatuses: InvoiceStatus[],
  data: Prisma.InvoiceUncheckedUpdateManyInput,
) {
  const { count } = await prisma.invoice.updateMany({ where: { orgId, id, status: { in: fromStatuses } }, data });
  if (count === 0) return null;
  return findInvoice(prisma, orgId, id);
}

export async function deleteInvoiceIn(prisma: PrismaClient, orgId: string, id: string, fromStatuses: InvoiceStatus[]) {
  const { count } = await prisma.invoice.deleteMany({ where: { orgId, id, status: { in: fromStatuses } } });
  return count > 0;
}
