import { planLimits, plans } from '@voice/proto';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * Deletes audit records older than each plan's retention (7 days, 30 days, 1 year, unlimited). Safe to run
 * on every replica at once: it only deletes what is already past its time.
 */
export async function applyAuditRetention(prisma: PrismaClient, now: Date): Promise<number> {
  let deleted = 0;
  for (const plan of plans) {
    const days = planLimits[plan].auditRetentionDays;
    if (days === null) continue;
    const cutoff = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
    deleted += await prisma.$executeRaw`
      DELETE FROM audit_records a USING organizations o
      WHERE a.org_id = o.id AND o.plan = ${plan}::"Plan" AND a.created_at < ${cutoff}`;
  }
  return deleted;
}
