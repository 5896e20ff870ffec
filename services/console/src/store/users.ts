import type { PrismaClient } from '../generated/prisma/client.js';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(prisma: PrismaClient, email: string) {
  return prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
}
