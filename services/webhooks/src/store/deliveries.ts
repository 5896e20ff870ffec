import { afterPosition, decodeCursor, eventId, keysetOrder, newId, notFound, toPage } from '@voice/kit';
import {
  type EventEnvelope,
  type EventType,
  eventRecordId,
  type ListDeliveriesQuery,
  livemodeOf,
  type RecordEvent,
  recordEventsLimit,
  webhookTestEventDataSchema,
} from '@voice/proto';
import { toDelivery } from '../domain/records.js';
import type { Endpoint, PrismaClient } from '../generated/prisma/client.js';
import type { DeliveryStatus, EndpointStatus } from '../generated/prisma/enums.js';
import { getEndpointRow } from './endpoints.js';

/** Events, deliveries and their attempts. Every query takes the organization first. */

/**
 * Fan-out of several events in one statement (one round trip, one commit): for each, finds the organization's
 * enabled endpoints subscribed to its type, stores the event and one delivery per endpoint, and returns, by
 * event id, the ids of its deliveries that still wait for an attempt, which are exactly the jobs to (re)queue.
 * The fan-out consumer hands it the events it takes in the same turn of the event loop (nats/fanout.ts).
 *
 * Delivery ids are derived from (endpoint, event), so a redelivered event inserts nothing and finds the
 * same ids; they double as BullMQ job ids, which BullMQ does not add twice while a job is queued.
 */
export async function recordFanouts(prisma: PrismaClient, events: readonly EventEnvelope[]): Promise<Map<string, string[]>> {
  const pending = new Map<string, string[]>(events.map((event) => [event.id, []]));
  // The same event twice in one batch (a redelivery) is stored once; both callers get its ids.
  const unique = [...new Map(events.map((event) => [event.id, event])).values()];
  if (unique.length === 0) return pending;
  const rows = await prisma.$queryRaw<Array<{ id: string; eventId: string }>>`
    WITH incoming AS (
      SELECT * FROM unnest(
        ${unique.map((event) => event.id)}::text[], ${unique.map((event) => event.org_id)}::text[],
        ${unique.map((event) => event.type)}::text[], ${unique.map((event) => JSON.stringify(event))}::text[],
        ${unique.map((event) => eventRecordId(event))}::text[], ${unique.map((event) => event.created_at)}::timestamptz[]
      ) AS incoming (id, org_id, type, body, record_id, created_at)
    ),
    targets AS (
      SELECT endpoints.id AS endpoint_id, incoming.id AS event_id, incoming.org_id, incoming.type
      FROM incoming JOIN endpoints ON endpoints.org_id = incoming.org_id AND endpoints.status = 'enabled'
        AND endpoints.event_types && ARRAY['*', incoming.type]::text[]
    ),
    stored_events AS (
      INSERT INTO events (id, org_id, type, body, record_id, created_at)
      SELECT id, org_id, type, body, record_id, created_at FROM incoming
      WHERE EXISTS (SELECT 1 FROM targets WHERE targets.event_id = incoming.id)
      ON CONFLICT (id) DO NOTHING
    ),
    planned AS (
      SELECT 'dlv_' || left(encode(sha256(convert_to(endpoint_id || '.' || event_id, 'UTF8')), 'hex'), 32) AS id,
        endpoint_id, event_id, org_id, type
      FROM targets
    ),
    inserted AS (
      INSERT INTO deliveries (id, org_id, endpoint_id, event_id, event_type, next_attempt_at, updated_at)
      SELECT id, org_id, endpoint_id, event_id, type, now(), now() FROM planned
      ON CONFLICT (id) DO NOTHING
      RETURNING id, event_id
    )
    SELECT id, event_id AS "eventId" FROM inserted
    UNION
    SELECT deliveries.id, deliveries.event_id FROM deliveries JOIN planned ON planned.id = deliveries.id
    WHERE deliveries.status = 'pending'`;
  for (const row of rows) pending.get(row.eventId)?.push(row.id);
  return pending;
}

/** The deliveries of one event, first made first (a triggered test event's, for its answer). */
export function eventDeliveries(prisma: PrismaClient, orgId: string, eventId: string) {
  return prisma.delivery.findMany({ where: { orgId, eventId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
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

/**
 * The events one record produced that were due to an endpoint, oldest first, each with its deliveries and
 * where they went: one range of (org_id, record_id, created_at), then the deliveries by event id.
 */
export async function listRecordEvents(prisma: PrismaClient, orgId: string, recordId: string) {
  const events = await prisma.event.findMany({
    where: { orgId, recordId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: recordEventsLimit + 1,
    select: {
      id: true,
      type: true,
      createdAt: true,
      deliveries: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { endpoint: { select: { url: true } } } },
    },
  });
  const data: RecordEvent[] = events.slice(0, recordEventsLimit).map((event) => ({
    id: event.id,
    // Stored from a validated envelope, so it is one of the catalogue's types.
    type: event.type as EventType,
    created_at: event.createdAt.toISOString(),
    deliveries: event.deliveries.map(({ endpoint, ...delivery }) => ({ ...toDelivery(delivery), endpoint_url: endpoint.url })),
  }));
  return { data, has_more: events.length > recordEventsLimit };
}

export async function getDeliveryRow(prisma: PrismaClient, orgId: string, endpointId: string, id: string) {
  const row = await prisma.delivery.findFirst({ where: { orgId, endpointId, id } });
  if (!row) throw notFound('delivery', 'delivery_id');
  return row;
}

/** One delivery with the exact body it sends. */
export async function getDeliveryWithEvent(prisma: PrismaClient, orgId: string, endpointId: string, id: string) {
  const row = await prisma.delivery.findFirst({ where: { orgId, endpointId, id }, include: { event: true } });
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
    id: eventId(),
    type: 'webhook.test',
    created_at: now.toISOString(),
    org_id: orgId,
    livemode: livemodeOf(orgId),
    data: webhookTestEventDataSchema.parse({
      endpoint_id: endpointId,
      message: 'A test event sent on request. Receiving it means this endpoint is set up.',
    }),
  };
  const [, delivery] = await prisma.$transaction([
    prisma.event.create({ data: { id: event.id, orgId, type: event.type, body: JSON.stringify(event), createdAt: now } }),
    prisma.delivery.create({
      data: { id: newId('delivery'), orgId, endpointId, eventId: event.id, eventType: event.type, nextAttemptAt: now },
    }),
  ]);
  return delivery;
}

/** What one attempt reads: the delivery, the endpoint's fields it needs (secrets included) and the exact body. */
export interface AttemptRow {
  id: string;
  status: DeliveryStatus;
  attemptCount: number;
  replayOf: string | null;
  createdAt: Date;
  endpoint: Pick<Endpoint, 'id' | 'url' | 'status' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt' | 'failingSince'>;
  event: { id: string; body: string; createdAt: Date };
}

/**
 * Everything the attempts of several deliveries need, in one statement: each delivery joined to its endpoint
 * and event, by id. The worker asks for the deliveries of the jobs it starts together at once (see
 * delivery/batch.ts): before, Prisma's `include` made three queries per attempt, one round trip each.
 */
export async function loadAttempts(
  prisma: PrismaClient,
  keys: ReadonlyArray<{ orgId: string; deliveryId: string }>,
): Promise<Map<string, AttemptRow>> {
  const rows = await prisma.$queryRaw<
    Array<{
      id: string;
      status: DeliveryStatus;
      attemptCount: number;
      replayOf: string | null;
      createdAt: Date;
      endpointId: string;
      url: string;
      endpointStatus: EndpointStatus;
      secret: string;
      previousSecret: string | null;
      previousSecretExpiresAt: Date | null;
      failingSince: Date | null;
      eventId: string;
      body: string;
      eventCreatedAt: Date;
    }>
  >`
    SELECT d.id, d.status::text AS status, d.attempt_count AS "attemptCount", d.replay_of AS "replayOf", d.created_at AS "createdAt",
      n.id AS "endpointId", n.url, n.status::text AS "endpointStatus", n.secret, n.previous_secret AS "previousSecret",
      n.previous_secret_expires_at AS "previousSecretExpiresAt", n.failing_since AS "failingSince",
      e.id AS "eventId", e.body, e.created_at AS "eventCreatedAt"
    FROM unnest(${keys.map((key) => key.orgId)}::text[], ${keys.map((key) => key.deliveryId)}::text[]) AS wanted (org_id, id)
    JOIN deliveries AS d ON d.org_id = wanted.org_id AND d.id = wanted.id
    JOIN endpoints AS n ON n.id = d.endpoint_id
    JOIN events AS e ON e.id = d.event_id`;
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        status: row.status,
        attemptCount: row.attemptCount,
        replayOf: row.replayOf,
        createdAt: row.createdAt,
        endpoint: {
          id: row.endpointId,
          url: row.url,
          status: row.endpointStatus,
          secret: row.secret,
          previousSecret: row.previousSecret,
          previousSecretExpiresAt: row.previousSecretExpiresAt,
          failingSince: row.failingSince,
        },
        event: { id: row.eventId, body: row.body, createdAt: row.eventCreatedAt },
      },
    ]),
  );
}

/** Everything one attempt needs: the delivery, its endpoint (secrets included) and the exact body. */
export async function loadAttempt(prisma: PrismaClient, orgId: string, deliveryId: string): Promise<AttemptRow | null> {
  return (await loadAttempts(prisma, [{ orgId, deliveryId }])).get(deliveryId) ?? null;
}

export interface AttemptRecord {
  at: Date;
  responseStatus: number | null;
  responseExcerpt: string | null;
  lastError: string | null;
}

/** A 2xx: the delivery is done. */
export async function recordSuccess(prisma: PrismaClient, orgId: string, id: string, attempt: AttemptRecord) {
  await recordSuccesses(prisma, [{ orgId, id, attempt }]);
}

/**
 * Several deliveries done, in one statement (one round trip, one commit): the worker records the 2xx of the
 * attempts that end together at once (see delivery/batch.ts).
 */
export async function recordSuccesses(prisma: PrismaClient, done: ReadonlyArray<{ orgId: string; id: string; attempt: AttemptRecord }>) {
  if (done.length === 0) return;
  await prisma.$executeRaw`
    UPDATE deliveries AS d SET status = 'succeeded', attempt_count = d.attempt_count + 1, last_attempt_at = done.at,
      next_attempt_at = NULL, response_status = done.response_status, response_excerpt = done.response_excerpt,
      last_error = NULL, updated_at = ${new Date()}
    FROM unnest(
      ${done.map((item) => item.orgId)}::text[],
      ${done.map((item) => item.id)}::text[],
      ${done.map((item) => item.attempt.at.toISOString())}::timestamptz[],
      ${done.map((item) => item.attempt.responseStatus)}::int[],
      ${done.map((item) => item.attempt.responseExcerpt)}::text[]
    ) AS done (org_id, id, at, response_status, response_excerpt)
    WHERE d.org_id = done.org_id AND d.id = done.id`;
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
