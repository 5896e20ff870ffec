import type { PrismaClient } from '../generated/prisma/client.js';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(prisma: PrismaClient, email: string) {
  return prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
}

/** The person's own display setting (Preferences): the IANA zone their pages show times in. */
export function setUserTimeZone(prisma: PrismaClient, userId: string, timeZone: string) {
  return prisma.user.update({ where: { id: userId }, data: { timeZone }, select: { id: true } });
}
