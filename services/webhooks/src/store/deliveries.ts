import { afterPosition, decodeCursor, keysetOrder, newId, notFound, toPage } from '@voice/kit';
import type { EventEnvelope, ListDeliveriesQuery } from '@voice/proto';
import { deliveryIdFor } from '../delivery/queue.js';
import { toDelivery } from '../domain/records.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { getEndpointRow } from './endpoints.js';

/** Events, deliveries and their attempts. Every query takes the organization first. */

/**
 * Stores an event and one delivery per endpoint, both idempotently (a redelivered event inserts nothing),
 * and returns the deliveries of this event that still wait for an attempt: exactly the jobs to (re)queue.
 */
export async function recordFanout(prisma: PrismaClient, orgId: string, event: EventEnvelope, endpointIds: readonly string[]) {
  if (endpointIds.length === 0) return [];
  const ids = endpointIds.map((endpointId) => deliveryIdFor(endpointId, event.id));
  await prisma.$transaction([
    prisma.event.createMany({
      data: [{ id: event.id, orgId, type: event.type, body: JSON.stringify(event), createdAt: new Date(event.created_at) }],
      skipDuplicates: true,
    }),
    prisma.delivery.createMany({
      data: endpointIds.map((endpointId, index) => ({
        id: ids[index] as string,
        orgId,
        endpointId,
        eventId: event.id,
        eventType: event.type,
        nextAttemptAt: new Date(),
      })),
      skipDuplicates: true,
    }),
  ]);
  const pending = await prisma.delivery.findMany({ where: { orgId, id: { in: ids }, status: 'pending' }, select: { id: true } });
  return pending.map((row) => row.id);
}

export async function listDeliveries(prisma: PrismaClient, orgId: string, endpointId: string, query: ListDeliveriesQuery) {
  await getEndpointRow(prisma, orgId, endpointId);
  const { limit, cursor, ...filters } = query;
  const position = decodeCursor(cursor, filters);
  const rows = await prisma.delivery.findMany({
    where: {
      orgId,
      endpointId,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.event_type ? { eventType: filters.event_type } : {}),
      ...afterPosition(position),
    },
    orderBy: keysetOrder,
    take: limit + 1,
  });
  return toPage(rows, limit, filters, toDelivery);
}

export async function getDeliveryRow(prisma: PrismaClient, orgId: string, endpointId: string, id: string) {
  const row = await prisma.delivery.findFirst({ where: { orgId, endpointId, id } });
  if (!row) throw notFound('delivery', 'delivery_id');
  return row;
}

/** A new delivery of the same event to the same endpoint, with a fresh schedule; the original stays in the log. */
export async function createReplay(prisma: PrismaClient, orgId: string, endpointId: string, deliveryId: string) {
  const original = await getDeliveryRow(prisma, orgId, endpointId, deliveryId);
  return prisma.delivery.create({
    data: {
      id: newId('delivery'),
      orgId,
      endpointId,
      eventId: original.eventId,
      eventType: original.eventType,
      replayOf: original.id,
      nextAttemptAt: new Date(),
    },
  });
}

/** A `webhook.test` event and its one delivery, to this endpoint only. */
export async function createTestDelivery(prisma: PrismaClient, orgId: string, endpointId: string, now: Date = new Date()) {
  const event: EventEnvelope = {
    id: newId('event'),
    type: 'webhook.test',
    created_at: now.toISOString(),
    org_id: orgId,
    data: { endpoint_id: endpointId, message: 'A test event sent on request. Receiving it means this endpoint is set up.' },
  };
  const [, delivery] = await prisma.$transaction([
    prisma.event.create({ data: { id: event.id, orgId, type: event.type, body: JSON.stringify(event), createdAt: now } }),
    prisma.delivery.create({
      data: { id: deliveryIdFor(endpointId, event.id), orgId, endpointId, eventId: event.id, eventType: event.type, nextAttemptAt: now },
    }),
  ]);
  return delivery;
}

/** Everything one attempt needs: the delivery, its endpoint (secrets included) and the exact body. */
export async function loadAttempt(prisma: PrismaClient, orgId: string, deliveryId: string) {
  return prisma.delivery.findFirst({ where: { orgId, id: deliveryId }, include: { endpoint: true, event: true } });
}

export interface AttemptRecord {
  at: Date;
  responseStatus: number | null;
  responseExcerpt: string | null;
  lastError: string | null;
}

export async function recordSuccess(prisma: PrismaClient, orgId: string, id: string, attempt: AttemptRecord) {
  await prisma.delivery.updateMany({
    where: { orgId, id },
    data: {
      status: 'succeeded',
      attemptCount: { increment: 1 },
      lastAttemptAt: attempt.at,
      nextAttemptAt: null,
      responseStatus: attempt.responseStatus,
      responseExcerpt: attempt.responseExcerpt,
      lastError: null,
    },
  });
}

/** A failed attempt: retried at `nextAttemptAt`, or a dead letter when that is null. */
export async function recordFailure(prisma: PrismaClient, orgId: string, id: string, attempt: AttemptRecord, nextAttemptAt: Date | null) {
  await prisma.delivery.updateMany({
    where: { orgId, id },
    data: {
      status: nextAttemptAt === null ? 'failed' : 'pending',
      attemptCount: { increment: 1 },
      lastAttemptAt: attempt.at,
      nextAttemptAt,
      responseStatus: attempt.responseStatus,
      responseExcerpt: attempt.responseExcerpt,
      lastError: attempt.lastError,
    },
  });
}

/** Gives up a delivery without an attempt (its endpoint was disabled meanwhile): a dead letter to replay later. */
export async function abandon(prisma: PrismaClient, orgId: string, id: string, reason: string) {
  await prisma.delivery.updateMany({
    where: { orgId, id, status: 'pending' },
    data: { status: 'failed', nextAttemptAt: null, lastError: reason },
  });
}
