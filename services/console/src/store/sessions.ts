import type { Db } from './memberships.js';

export function findLiveSession(prisma: Db, idHash: string, now: Date) {
  return prisma.session.findFirst({
    where: { idHash, revokedAt: null, idleExpiresAt: { gt: now }, absoluteExpiresAt: { gt: now } },
    include: { user: { select: { id: true, name: true, email: true, timeZone: true } } },
  });
}

export function revokeSession(prisma: Db, idHash: string, now: Date) {
  return prisma.session.updateMany({ where: { idHash, revokedAt: null }, data: { revokedAt: now } });
}

export function revokeUserSessions(prisma: Db, userId: string, now: Date) {
  return prisma.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
}
