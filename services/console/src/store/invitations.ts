import type { Db } from './memberships.js';

export function findInvitationByTokenHash(prisma: Db, tokenHash: string) {
  return prisma.invitation.findUnique({ where: { tokenHash } });
}

/** Invitations of the organization not yet accepted and not expired, for the members page. */
export function listPendingInvitations(prisma: Db, orgId: string, now: Date) {
  return prisma.invitation.findMany({
    where: { orgId, acceptedAt: null, expiresAt: { gt: now } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, email: true, role: true, expiresAt: true },
  });
}

/** Marks the invitation used, if it still was usable: the count says whether this caller won. */
export async function claimInvitation(tx: Db, invitationId: string, now: Date): Promise<boolean> {
  const { count } = await tx.invitation.updateMany({
    where: { id: invitationId, acceptedAt: null, expiresAt: { gt: now } },
    data: { acceptedAt: now },
  });
  return count === 1;
}
