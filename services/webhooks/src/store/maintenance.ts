import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * The service's own housekeeping. These are the only queries that span organizations: they act on every
 * tenant's rows alike and return nothing to any caller.
 */

/** Deliveries still pending whose attempt was due before `dueBefore`, oldest first. */
export async function overdueDeliveriesOfAllOrganizations(prisma: PrismaClient, dueBefore: Date, limit: number) {
  return prisma.delivery.findMany({
    where: { status: 'pending', nextAttemptAt: { lt: dueBefore } },
    orderBy: { nextAttemptAt: 'asc' },
    select: { id: true, orgId: true },
    take: limit,
  });
}

/** Deletes up to `limit` finished deliveries last changed before `before`, then events no delivery refers to. */
export async function deleteExpiredLogOfAllOrganizations(prisma: PrismaClient, before: Date, limit: number) {
  const deliveries = await prisma.$executeRaw`
    DELETE FROM deliveries WHERE id IN (
      SELECT id FROM deliveries WHERE status IN ('succeeded', 'failed') AND updated_at < ${before} LIMIT ${limit}
    )`;
  const events = await prisma.$executeRaw`
    DELETE FROM events WHERE id IN (
      SELECT id FROM events
      WHERE created_at < ${before} AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_id = events.id)
      LIMIT ${limit}
    )`;
  return { deliveries, events };
}
