import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Role } from '../generated/prisma/enums.js';

export type Db = PrismaClient | Prisma.TransactionClient;

/** The user's organizations, oldest membership first: the first is where a new session starts. */
export function listUserMemberships(prisma: Db, userId: string) {
  return prisma.membership.findMany({
    where: { userId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { orgId: true, role: true },
  });
}

export function findMembership(prisma: Db, orgId: string, userId: string) {
  return prisma.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
}

/** The organization's members with their names, for the members page. */
export function listOrgMembers(prisma: Db, orgId: string) {
  return prisma.membership.findMany({
    where: { orgId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } },
  });
}

/** One membership of the organization, or null: an id from another organization finds nothing. */
export function findOrgMembership(prisma: Db, orgId: string, membershipId: string) {
  return prisma.membership.findFirst({ where: { orgId, id: membershipId } });
}

/**
 * Locks the organization's owner memberships for the rest of the transaction and returns their ids, so
 * two owners demoting each other at once cannot leave the organization without one.
 */
export async function lockOwnerIds(tx: Prisma.TransactionClient, orgId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM memberships WHERE org_id = ${orgId} AND role = 'owner' FOR UPDATE`;
  return rows.map((row) => row.id);
}

export function setMembershipRole(tx: Db, orgId: string, membershipId: string, role: Role) {
  return tx.membership.updateMany({ where: { orgId, id: membershipId }, data: { role } });
}

export function deleteMembership(tx: Db, orgId: string, membershipId: string) {
  return tx.membership.deleteMany({ where: { orgId, id: membershipId } });
}

/** The organization's owners and admins with their names and addresses, owners first, oldest first. */
export function listOrgApprovers(prisma: Db, orgId: string) {
  return prisma.membership.findMany({
    where: { orgId, role: { in: ['owner', 'admin'] } },
    orderBy: [{ role: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
    select: { role: true, user: { select: { id: true, name: true, email: true } } },
  });
}
