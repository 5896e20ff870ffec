import { afterPosition, decodeCursor, keysetOrder, newId, notFound, toPage } from '@voice/kit';
import type { CreateWebhookBody, DisabledReason, ListWebhooksQuery, UpdateWebhookBody } from '@voice/proto';
import { toEndpoint } from '../domain/records.js';
import type { SecretBox } from '../domain/secret-box.js';
import { newSecret } from '../domain/signature.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** Endpoints of one organization and the changes to them. Every query takes the organization first. */

/** A new endpoint and its secret in clear, to show once; the row holds it sealed. */
export async function createEndpoint(prisma: PrismaClient, orgId: string, body: CreateWebhookBody, box: SecretBox) {
  const id = newId('webhook');
  const secret = newSecret();
  const row = await prisma.endpoint.create({
    data: { id, orgId, url: body.url, description: body.description ?? null, eventTypes: body.event_types, secret: box.seal(secret, id) },
  });
  return { row, secret };
}

export async function listEndpoints(prisma: PrismaClient, orgId: string, query: ListWebhooksQuery) {
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.endpoint.findMany({
    where: { orgId, ...(filters.status ? { status: filters.status } : {}), ...afterPosition(position) },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toEndpoint);
}

export async function getEndpointRow(prisma: PrismaClient, orgId: string, id: string) {
  const row = await prisma.endpoint.findFirst({ where: { orgId, id } });
  if (!row) throw notFound('webhook endpoint', 'id');
  return row;
}

export async function updateEndpoint(prisma: PrismaClient, orgId: string, id: string, body: UpdateWebhookBody) {
  const current = await getEndpointRow(prisma, orgId, id);
  const statusChange =
    body.status === undefined || body.status === current.status
      ? {}
      : body.status === 'enabled'
        ? // Re-enabling starts a fresh record: the old failure run no longer counts toward disabling.
          { status: 'enabled' as const, disabledReason: null, failingSince: null }
        : { status: 'disabled' as const, disabledReason: 'manual' as const };
  return prisma.endpoint.update({
    where: { id: current.id, orgId },
    data: {
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.event_types === undefined ? {} : { eventTypes: body.event_types }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...statusChange,
    },
  });
}

export async function deleteEndpoint(prisma: PrismaClient, orgId: string, id: string) {
  const { count } = await prisma.endpoint.deleteMany({ where: { orgId, id } });
  if (count === 0) throw notFound('webhook endpoint', 'id');
}

/** A new secret; the old one keeps signing alongside it for `graceMs`, so receivers can switch without a gap. */
export async function rotateSecret(
  prisma: PrismaClient,
  orgId: string,
  id: string,
  graceMs: number,
  box: SecretBox,
  now: Date = new Date(),
) {
  const current = await getEndpointRow(prisma, orgId, id);
  const secret = newSecret();
  const row = await prisma.endpoint.update({
    where: { id: current.id, orgId },
    data: {
      secret: box.seal(secret, current.id),
      previousSecret: graceMs > 0 ? current.secret : null,
      previousSecretExpiresAt: graceMs > 0 ? new Date(now.getTime() + graceMs) : null,
      secretRotatedAt: now,
    },
  });
  return { row, secret };
}

export async function disableEndpoint(prisma: PrismaClient, orgId: string, id: string, reason: DisabledReason) {
  await prisma.endpoint.updateMany({ where: { orgId, id, status: 'enabled' }, data: { status: 'disabled', disabledReason: reason } });
}

/** Marks the start of a failure run (kept if one is running) and returns it. */
export async function markFailing(prisma: PrismaClient, orgId: string, id: string, now: Date): Promise<Date> {
  await prisma.endpoint.updateMany({ where: { orgId, id, failingSince: null }, data: { failingSince: now } });
  const row = await prisma.endpoint.findFirst({ where: { orgId, id }, select: { failingSince: true } });
  return row?.failingSince ?? now;
}

export async function markHealthy(prisma: PrismaClient, orgId: string, id: string) {
  await prisma.endpoint.updateMany({ where: { orgId, id, failingSince: { not: null } }, data: { failingSince: null } });
}
