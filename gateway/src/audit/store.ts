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
    created_at: row.createdAt.toISOString(),
  };
}

export async function listAuditLog(prisma: PrismaClient, orgId: string, query: z.infer<typeof listAuditLogQuerySchema>) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.auditRecord.findMany({
    where: {
      orgId,
      ...(filters.key_id ? { keyId: filters.key_id } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...createdBetween(filters.created_after, filters.created_before),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toAuditItem);
}
