import type { PrismaClient } from '../generated/prisma/client.js';
import type { CountedRequests } from './quota.js';

/**
 * The requests counted in a period, from the audit log: the gateway audits exactly the requests the quota
 * script counted (an identity is set only after it allowed one), as actor `key` or `grant` (an OAuth access
 * token's call, under the grant's id, which is its lineage); the console's actions (actor `user`) and the
 * platform's own (actor `system`, under the grant's id too) are in the same log but are no API calls, so
 * they count toward neither limit. What this misses after Redis lost its
 * counters: records still on their way (the publisher's buffer and the writer's batch, about a second),
 * and records already deleted by retention (Lite keeps 7 days, so its rebuilt month counts only those).
 */
export function auditedRequests(prisma: PrismaClient): CountedRequests {
  return {
    async ofLineage(orgId, lineageId, from, to) {
      const [row] = await prisma.$queryRaw<Array<{ count: number }>>`
        SELECT count(*)::int AS count FROM audit_records a JOIN api_keys k ON k.id = a.key_id
        WHERE a.org_id = ${orgId} AND k.org_id = ${orgId} AND k.lineage_id = ${lineageId}
          AND a.actor_type IN ('key', 'grant') AND a.created_at >= ${from} AND a.created_at < ${to}`;
      return row?.count ?? 0;
    },
    async ofOrganization(orgId, from, to) {
      const [row] = await prisma.$queryRaw<Array<{ count: number }>>`
        SELECT count(*)::int AS count FROM audit_records
        WHERE org_id = ${orgId} AND actor_type IN ('key', 'grant') AND created_at >= ${from} AND created_at < ${to}`;
      return row?.count ?? 0;
    },
  };
}
