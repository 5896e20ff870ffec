import { notFound } from '@voice/kit';
import type { PrismaClient } from '../generated/prisma/client.js';

// Records point at other records of the same organization only: an id from another organization is
// "not found", exactly like an id that does not exist.

export async function assertWorkspace(prisma: PrismaClient, orgId: string, id: string | null | undefined, param = 'workspace_id') {
  if (!id) return;
  const found = await prisma.workspace.findFirst({ where: { orgId, id }, select: { id: true } });
  if (!found) throw notFound('workspace', param);
}

export async function assertTheme(prisma: PrismaClient, orgId: string, id: string | null | undefined, param = 'theme_id') {
  if (!id) return;
  const found = await prisma.theme.findFirst({ where: { orgId, id }, select: { id: true } });
  if (!found) throw notFound('theme', param);
}

export async function assertLead(prisma: PrismaClient, orgId: string, id: string | null | undefined, param = 'lead_id') {
  if (!id) return;
  const found = await prisma.lead.findFirst({ where: { orgId, id }, select: { id: true } });
  if (!found) throw notFound('lead', param);
}

/** Prisma's unique-constraint violation, whichever driver reported it. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'P2002';
}
