import { afterPosition, createdBetween, decodeCursor, keysetOrder, toPage } from '@voice/kit';
import type { listAuditLogQuerySchema } from '@voice/proto';
import type { z } from 'zod';
import type { AuditRecord, PrismaClient } from '../generated/prisma/client.js';

function toAuditItem(row: AuditRecord) {
  return {
    id: row.id,
    object: 'audit_record' as const,
    actor_type: row.actorType,
    key_id: row.keyId,
    method: row.method,
    path: row.path,
    status: row.status,
    latency_ms: row.latencyMs,
    request_id: row.requestId,
    client_address: row.clientAddress,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
  };
}

/** Status classes as ranges: `4xx` is 400 to 499. */
function statusRange(statusClass: string) {
  const hundreds = Number(statusClass[0]) * 100;
  return { gte: hundreds, lt: hundreds + 100 };
}

/** A path prefix as a LIKE pattern matches only itself: `%`, `_` and `\\` in it are literal. */
const literalPrefix = (prefix: string) => prefix.replace(/[\\%_]/g, '\\$&');

export async function listAuditLog(prisma: PrismaClient, orgId: string, query: z.infer<typeof listAuditLogQuerySchema>) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.auditRecord.findMany({
    where: {
      orgId,
      ...(filters.key_id ? { keyId: filters.key_id } : {}),
      ...(filters.status ? { status: filters.status } : filters.status_class ? { status: statusRange(filters.status_class) } : {}),
      ...(filters.actor_type ? { actorType: filters.actor_type } : {}),
      ...(filters.path_prefix ? { path: { startsWith: literalPrefix(filters.path_prefix) } } : {}),
      ...createdBetween(filters.created_after, filters.created_before),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toAuditItem);
}

/**
 * API calls (with API keys or OAuth grants; not console actions nor the platform's own) per UTC day and key or grant since
 * `from`. One range scan of the primary key (org_id, created_at, id), grouped in Postgres, so a busy
 * organization's month comes back as at most days × keys rows.
 */
export async function dailyCounts(prisma: PrismaClient, orgId: string, from: Date) {
  const rows = await prisma.$queryRaw<{ day: Date; key_id: string; count: bigint }[]>`
    SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day, key_id, count(*) AS count
    FROM audit_records
    WHERE org_id = ${orgId} AND created_at >= ${from} AND actor_type IN ('key', 'grant')
    GROUP BY 1, 2
    ORDER BY 1, 2`;
  return rows.map((row) => ({ date: row.day.toISOString().slice(0, 10), key_id: row.key_id, count: Number(row.count) }));
}
