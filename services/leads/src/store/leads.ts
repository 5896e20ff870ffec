import {
  afterPosition,
  createdBetween,
  decodeCursor,
  decodeTwoWayCursor,
  keysetOrder,
  keysetWindow,
  notFound,
  toPage,
  toTwoWayPage,
} from '@voice/kit';
import type { LeadCountsQuery, ListLeadsQuery, RecentLeadsQuery } from '@voice/proto';
import { toLead, toLeadNote } from '../domain/records.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** Leads of one organization, newest first, by keyset both ways (Older and Newer), with the list's filters. */
export async function listLeads(prisma: PrismaClient, orgId: string, query: ListLeadsQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeTwoWayCursor(cursor, filters);
  const window = keysetWindow(position);
  const text = filters.q;
  const rows = await prisma.lead.findMany({
    where: {
      orgId,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.workspace_id ? { workspaceId: filters.workspace_id } : {}),
      ...(filters.tag ? { tags: { has: filters.tag } } : {}),
      ...(filters.owner ? { owner: filters.owner } : {}),
      ...(filters.source ? { source: filters.source } : {}),
      ...(filters.qualified === undefined ? {} : { qualifiedAt: filters.qualified ? { not: null } : null }),
      ...createdBetween(filters.created_after, filters.created_before),
      AND: [window.where, text ? searchWhere(text) : {}],
    },
    orderBy: window.orderBy,
    take: limit + 1,
  });
  return toTwoWayPage(rows, limit, filters, position, toLead);
}

/**
 * "The name, e-mail, phone or company contains this text, in any case" (`q`). One trigram index serves it:
 * `search_text` is the four in lower case (see its migration). The index is asked for a number's last 7
 * digits only, where numbers differ: the trigrams every number shares (`+1`, the area code) have posting
 * lists as long as the table, which cost ~200 ms on a million leads; the whole text is then checked on the
 * few rows found, on the columns themselves.
 */
function searchWhere(text: string) {
  const digits = text.replace(/^\+/, '');
  const indexed = /^[0-9]{8,}$/.test(digits) ? digits.slice(-7) : text.toLowerCase();
  return {
    AND: [
      { searchText: { contains: indexed } },
      {
        OR: [
          { name: { contains: text, mode: 'insensitive' as const } },
          { email: { contains: text, mode: 'insensitive' as const } },
          { phone: { contains: text } },
          { company: { contains: text, mode: 'insensitive' as const } },
        ],
      },
    ],
  };
}

/**
 * Leads created in the last `since_hours`, newest first. Each page measures the window from its own
 * request time; the keyset continues where the previous page stopped.
 */
export async function listRecentLeads(prisma: PrismaClient, orgId: string, query: RecentLeadsQuery, now: Date = new Date()) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const since = new Date(now.getTime() - filters.since_hours * 60 * 60 * 1000);
  const rows = await prisma.lead.findMany({
    where: {
      orgId,
      createdAt: { gte: since },
      ...(filters.qualified_only ? { qualifiedAt: { not: null } } : {}),
      ...(filters.workspace_id ? { workspaceId: filters.workspace_id } : {}),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toLead);
}

/** Leads created, and leads first qualified, in [from, to): two index range counts. */
export async function countLeads(prisma: PrismaClient, orgId: string, query: LeadCountsQuery) {
  const from = new Date(query.from);
  const to = new Date(query.to);
  const [created, qualified] = await Promise.all([
    prisma.lead.count({ where: { orgId, createdAt: { gte: from, lt: to } } }),
    prisma.lead.count({ where: { orgId, qualifiedAt: { gte: from, lt: to } } }),
  ]);
  return { object: 'lead_counts' as const, from: from.toISOString(), to: to.toISOString(), created, qualified };
}

export async function findLead(prisma: PrismaClient, orgId: string, id: string, param = 'id') {
  const row = await prisma.lead.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('lead', param);
  return row;
}

/** Which of these ids are leads of the organization. */
export async function existingLeadIds(prisma: PrismaClient, orgId: string, ids: string[]) {
  const rows = await prisma.lead.findMany({ where: { orgId, id: { in: ids } }, select: { id: true } });
  return rows.map((row) => row.id);
}

export async function findLeadIfAny(prisma: PrismaClient, orgId: string, id: string) {
  return prisma.lead.findFirst({ where: { orgId, id } });
}

/** A lead and its first note, in the caller's transaction (which also records `lead.created`). */
export async function insertLead(
  tx: Prisma.TransactionClient,
  orgId: string,
  data: Omit<Prisma.LeadUncheckedCreateInput, 'orgId'>,
  firstNote?: { id: string; body: string },
) {
  const row = await tx.lead.create({ data: { ...data, orgId } });
  if (firstNote) await tx.leadNote.create({ data: { id: firstNote.id, orgId, leadId: row.id, body: firstNote.body } });
  return row;
}

/** Updates a lead when `where` still holds (besides org and id); null when it did not match. */
export async function updateLeadWhere(
  prisma: Prisma.TransactionClient,
  orgId: string,
  id: string,
  where: Prisma.LeadWhereInput,
  data: Prisma.LeadUncheckedUpdateManyInput,
) {
  const { count } = await prisma.lead.updateMany({ where: { ...where, orgId, id }, data });
  if (count === 0) return null;
  return prisma.lead.findFirst({ where: { orgId, id } });
}

export async function deleteLeadRow(prisma: Prisma.TransactionClient, orgId: string, id: string) {
  const { count } = await prisma.lead.deleteMany({ where: { orgId, id } });
  if (count === 0) throw notFound('lead', 'id');
}

export async function insertLeadNote(
  prisma: PrismaClient,
  orgId: string,
  data: { id: string; leadId: string; body: string; author: string | null },
) {
  return prisma.leadNote.create({ data: { ...data, orgId } });
}

export async function listLeadNotes(
  prisma: PrismaClient,
  orgId: string,
  leadId: string,
  query: { limit: number; cursor?: string | undefined },
) {
  const { limit, cursor } = query;
  const filters = { lead_id: leadId };
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.leadNote.findMany({
    where: { orgId, leadId, ...afterPosition(position) },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toLeadNote);
}
