// Records, request schemas and NATS operations of the webhooks service: endpoints and their deliveries.
import { z } from 'zod';
import { deletedSchema, idempotencyKeySchema, timestampSchema } from './common.js';
import { eventEnvelopeSchema, eventTypeSchema, eventTypes, internalEventTypes } from './events.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc, nameOperations } from './rpc.js';

/**
 * The event types an endpoint can subscribe to: the public catalogue minus `webhook.test`, which is only
 * ever sent on request, to one endpoint (`POST /api/v1/webhooks/{id}/test`).
 */
/** `*` subscribes to every subscribable type, including types added later. */
export const allEventTypes = '*';

/** One enum, so that the OpenAPI document (and a client generated from it) offers only what the API accepts. */
export const webhookEventTypeSchema = z
  .enum([allEventTypes, ...eventTypes])
  .exclude([...internalEventTypes, 'webhook.test'], { error: 'not a subscribable event type' })
  .describe('An event type such as `call.completed`, or `*` for all of them');

export const subscribableEventTypes = webhookEventTypeSchema.exclude([allEventTypes]).options;

/** Why a Lite organization cannot create or change endpoints: the service's `plan_required` message, shown by the console too. */
export const webhooksPlanMessage = 'Webhooks need the Starter, Pro or Enterprise plan; upgrade to create or change endpoints.';

export const endpointStatuses = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

/** Why an endpoint stopped receiving events. */
export const disabledReasons = ['manual', 'endpoint_gone', 'failing', 'plan'] as const;
export type DisabledReason = (typeof disabledReasons)[number];

/** Secrets as Standard Webhooks writes them: `whsec_` and the base64 of 24 to 64 random bytes. */
export const webhookSecretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/)
  .describe('Signing secret: `whsec_` and base64 key bytes. Shown only at creation and rotation.');

export const webhookEndpointSchema = z
  .object({
    id: idSchema('webhook'),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()).describe('Subscribed event types, or `["*"]` for all'),
    status: z.enum(endpointStatuses),
    disabled_reason: z
      .enum(disabledReasons)
      .nullable()
      .describe('`manual` (you disabled it), `endpoint_gone` (it answered 410), `failing` (every delivery failed for days)'),
    failing_since: timestampSchema.nullable().describe('Start of the current run of failed deliveries, null while healthy'),
    secret_rotated_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** What creation and rotation return: the only two moments the secret is ever shown. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({ secret: webhookSecretSchema }).meta({
  id: 'WebhookEndpointWithSecret',
});
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

export const webhookEndpointPageSchema = pageSchema(webhookEndpointSchema).meta({ id: 'WebhookEndpointPage' });

const endpointUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe('Where events are POSTed; https in production');
const eventTypesListSchema = z
  .array(webhookEventTypeSchema)
  .min(1)
  .max(64)
  .transform((types) => (types.includes(allEventTypes) ? [allEventTypes] : [...new Set(types)]));

export const createWebhookBodySchema = z
  .object({
    url: endpointUrlSchema,
    event_types: eventTypesListSchema.default([allEventTypes]),
    description: z.string().trim().min(1).max(500).optional(),
  })
  .strict()
  .meta({ id: 'CreateWebhookRequest' });
export type CreateWebhookBody = z.infer<typeof createWebhookBodySchema>;

export const updateWebhookBodySchema = z
  .object({
    url: endpointUrlSchema.optional(),
    event_types: eventTypesListSchema.optional(),
    description: z.string().trim().min(1).max(500).nullable().optional(),
    status: z.enum(endpointStatuses).optional().describe('`enabled` re-enables a disabled endpoint; `disabled` pauses it'),
  })
  .strict()
  .meta({ id: 'UpdateWebhookRequest' });
export type UpdateWebhookBody = z.infer<typeof updateWebhookBodySchema>;

export const deletedWebhookSchema = deletedSchema('webhook_endpoint', idSchema('webhook')).meta({ id: 'DeletedWebhookEndpoint' });

export const listWebhooksQuerySchema = listQuerySchema.extend({ status: z.enum(endpointStatuses).optional() });
export type ListWebhooksQuery = z.infer<typeof listWebhooksQuerySchema>;

// ---------------------------------------------------------------------------------------------------------
// Deliveries: one per event and endpoint (plus one per replay), each retried on the schedule.

/** `pending`: waiting for its first or next attempt; `failed`: retries exhausted or endpoint disabled (dead letter). */
export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const webhookDeliverySchema = z
  .object({
    id: idSchema('delivery'),
    object: z.literal('webhook_delivery'),
    endpoint_id: idSchema('webhook'),
    event_id: idSchema('event'),
    event_type: eventTypeSchema,
    status: z.enum(deliveryStatuses),
    attempt_count: z.number().int().nonnegative(),
    last_attempt_at: timestampSchema.nullable(),
    next_attempt_at: timestampSchema.nullable().describe('When the next attempt is due; null once succeeded or failed'),
    response_status: z.number().int().nullable().describe('HTTP status of the last attempt; null if none came back'),
    response_excerpt: z.string().nullable().describe('The first characters of the last response body'),
    last_error: z.string().nullable().describe('Why the last attempt failed when no status explains it, e.g. `timeout`'),
    replay_of: idSchema('delivery').nullable().describe('The delivery this one replays'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryPageSchema = pageSchema(webhookDeliverySchema).meta({ id: 'WebhookDeliveryPage' });

/** One delivery with the event it carries, exactly as it is sent (the list leaves the body out). */
export const webhookDeliveryWithEventSchema = webhookDeliverySchema
  .extend({ event: eventEnvelopeSchema.describe('The body POSTed to the endpoint') })
  .meta({ id: 'WebhookDeliveryWithEvent' });
export type WebhookDeliveryWithEvent = z.infer<typeof webhookDeliveryWithEventSchema>;

export const listDeliveriesQuerySchema = listQuerySchema.extend({
  status: z.enum(deliveryStatuses).optional().describe('`failed` lists the dead letters'),
  event_type: eventTypeSchema.optional(),
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuerySchema>;

/** The deliveries of one event, each with where it went. */
export const recordEventSchema = z
  .object({
    id: idSchema('event'),
    type: eventTypeSchema,
    created_at: timestampSchema,
    deliveries: z.array(webhookDeliverySchema.extend({ endpoint_url: z.string() })),
  })
  .meta({ id: 'WebhookRecordEvent' });
export type RecordEvent = z.infer<typeof recordEventSchema>;

/** How many of a record's events `listRecordEvents` answers with, oldest first (a call makes at most six). */
export const recordEventsLimit = 50;

// ---------------------------------------------------------------------------------------------------------
// Operations: the REST API's endpoints and deliveries (also on NATS, for other services and the console),
// the console's secret reveal and a record's events.

const webhooks = ['webhooks'];

/** Test mode: an event type to send the organization's test endpoints, with a realistic payload. */
export const triggerEventBodySchema = z
  .object({ event_type: webhookEventTypeSchema.exclude([allEventTypes]).describe('The event type to send, e.g. `call.completed`') })
  .strict()
  .meta({ id: 'TriggerEventBody' });

/** The event a test helper made and the deliveries it was due, one per subscribed test endpoint. */
export const triggeredEventSchema = z
  .object({
    object: z.literal('triggered_event'),
    event: eventEnvelopeSchema.describe('The body POSTed to each endpoint'),
    deliveries: z.array(webhookDeliverySchema),
  })
  .meta({ id: 'TriggeredEvent' });
export type TriggeredEvent = z.infer<typeof triggeredEventSchema>;
const byEndpointId = z.object({ id: idSchema('webhook') });
const byDeliveryId = byEndpointId.extend({ delivery_id: idSchema('delivery') });

export const webhooksRpc = nameOperations({
  listEndpoints: defineRpc('svc.webhooks.endpoints.list', listWebhooksQuerySchema, webhookEndpointPageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/webhooks',
      tags: webhooks,
      summary: 'List endpoints, newest first',
      query: listWebhooksQuerySchema,
    },
  }),
  getEndpoint: defineRpc('svc.webhooks.endpoints.get', byEndpointId, webhookEndpointSchema, 'read', {
    http: { method: 'GET', path: '/api/v1/webhooks/:id', tags: webhooks, summary: 'Get one endpoint', params: byEndpointId },
  }),
  /**
   * Idempotent: the same key and body create one endpoint. Only its id is kept with the key (the service's
   * `remember`): the secret stays sealed in Postgres, never in clear in Redis.
   */
  createEndpoint: defineRpc(
    'svc.webhooks.endpoints.create',
    createWebhookBodySchema.extend({
      idempotency_key: idempotencyKeySchema
        .describe('Same meaning as the Idempotency-Key header: a retried request with the same key runs once.')
        .optional(),
    }),
    webhookEndpointWithSecretSchema,
    'read-write',
    {
      http: {
        method: 'POST',
        path: '/api/v1/webhooks',
        tags: webhooks,
        summary: 'Create an endpoint; the response carries its signing secret, shown this once',
        body: createWebhookBodySchema,
        status: 201,
      },
      idempotent: 'webhooks.create',
    },
  ),
  updateEndpoint: defineRpc(
    'svc.webhooks.endpoints.update',
    byEndpointId.extend(updateWebhookBodySchema.shape).strict(),
    webhookEndpointSchema,
    'read-write',
    {
      http: {
        method: 'PATCH',
        path: '/api/v1/webhooks/:id',
        tags: webhooks,
        summary: 'Change an endpoint’s URL, event types or description, or disable and re-enable it',
        params: byEndpointId,
        body: updateWebhookBodySchema,
      },
    },
  ),
  deleteEndpoint: defineRpc('svc.webhooks.endpoints.delete', byEndpointId, deletedWebhookSchema, 'read-write', {
    http: {
      method: 'DELETE',
      path: '/api/v1/webhooks/:id',
      tags: webhooks,
      summary: 'Delete an endpoint and its delivery log; pending deliveries are dropped',
      params: byEndpointId,
    },
  }),
  rotateSecret: defineRpc('svc.webhooks.endpoints.rotate_secret', byEndpointId, webhookEndpointWithSecretSchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/webhooks/:id/rotate-secret',
      tags: webhooks,
      summary: 'Issue a new signing secret, shown this once; the old one keeps signing alongside it for a grace period',
      params: byEndpointId,
    },
  }),
  /**
   * The current signing secret, for a person in the console only (an identity with `user_id`): API keys
   * see a secret only when it is created or rotated.
   */
  revealSecret: defineRpc('svc.webhooks.endpoints.reveal_secret', byEndpointId, webhookEndpointWithSecretSchema, 'read-write'),
  sendTestEvent: defineRpc('svc.webhooks.endpoints.test', byEndpointId, webhookDeliverySchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/webhooks/:id/test',
      tags: webhooks,
      summary: 'Send a `webhook.test` event to this endpoint only',
      params: byEndpointId,
      status: 202,
    },
  }),
  listDeliveries: defineRpc(
    'svc.webhooks.deliveries.list',
    listDeliveriesQuerySchema.extend({ id: idSchema('webhook') }),
    webhookDeliveryPageSchema,
    'read',
    {
      http: {
        method: 'GET',
        path: '/api/v1/webhooks/:id/deliveries',
        tags: webhooks,
        summary: 'The delivery log of an endpoint, newest first; `status=failed` lists the dead letters',
        params: byEndpointId,
        query: listDeliveriesQuerySchema,
      },
    },
  ),
  getDelivery: defineRpc('svc.webhooks.deliveries.get', byDeliveryId, webhookDeliveryWithEventSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/webhooks/:id/deliveries/:delivery_id',
      tags: webhooks,
      summary: 'Get one delivery with the event body it sends',
      params: byDeliveryId,
    },
  }),
  replayDelivery: defineRpc('svc.webhooks.deliveries.replay', byDeliveryId, webhookDeliverySchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/webhooks/:id/deliveries/:delivery_id/replay',
      tags: webhooks,
      summary: 'Send a delivery’s event again, as a new delivery with its own retries (same `webhook-id`)',
      params: byDeliveryId,
      status: 202,
    },
  }),
  /** Test mode: sends one event of a type, with a realistic payload, to the test endpoints subscribed to it. */
  triggerEvent: defineRpc('svc.webhooks.test_helpers.trigger', triggerEventBodySchema, triggeredEventSchema, 'read-write', {
    testOnly: true,
    http: {
      method: 'POST',
      path: '/api/v1/test_helpers/webhooks/trigger',
      tags: ['test_helpers'],
      summary: 'Test mode: send an event of any type, with a realistic payload, to your test endpoints',
      description:
        'Test keys only (404 for live keys). The event (`livemode: false`) carries the type’s example data (the same every time; a fresh ' +
        'event id), with test-mode phone numbers, and goes to every enabled test endpoint subscribed to its type, signed, retried and ' +
        'logged as any other. It is not published to the platform’s other services, so no record changes. No subscribed endpoint: ' +
        '`deliveries` is empty and nothing is stored. Starter, Pro and Enterprise plans (403 plan_required otherwise).',
      body: triggerEventBodySchema,
      status: 202,
    },
    errors: ['invalid_request'],
  }),
  /**
   * The events one record produced (a call's `call.queued` … `call.completed`) that were due to an endpoint,
   * with their deliveries: a call's console page. NATS only; at most `recordEventsLimit`, oldest first.
   */
  listRecordEvents: defineRpc(
    'svc.webhooks.events.list_for_record',
    z.object({ record_id: z.string().regex(/^[a-z]+_[0-9A-Za-z]{8,40}$/) }),
    z.object({ data: z.array(recordEventSchema), has_more: z.boolean() }),
    'read',
  ),
});
