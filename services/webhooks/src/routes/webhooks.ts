import { ApiError, type HttpApp, idempotencyKeyOf, identityOf, runIdempotent, sendIdempotent } from '@voice/kit';
import {
  createWebhookBodySchema,
  deletedWebhookSchema,
  idSchema,
  listWebhooksQuerySchema,
  updateWebhookBodySchema,
  type WebhookEndpoint,
  webhookDeliverySchema,
  webhookEndpointPageSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '@voice/proto';
import { z } from 'zod';
import { enqueueDeliveries } from '../delivery/queue.js';
import type { WebhooksDeps } from '../deps.js';
import { urlProblem } from '../domain/address-guard.js';
import { assertWebhooksPlan } from '../domain/plan.js';
import { toDelivery, toEndpoint } from '../domain/records.js';
import { maxAttempts } from '../domain/retry-schedule.js';
import { createTestDelivery } from '../store/deliveries.js';
import { createEndpoint, deleteEndpoint, getEndpointRow, listEndpoints, rotateSecret, updateEndpoint } from '../store/endpoints.js';

const byId = z.object({ id: idSchema('webhook') });

export function webhookRoutes(app: HttpApp, deps: WebhooksDeps): void {
  const { prisma, env } = deps;

  const assertUrl = (url: string) => {
    const problem = urlProblem(url, deps.urlPolicy);
    if (problem !== null) throw new ApiError('invalid_request', `url ${problem}.`, { param: 'url' });
  };

  app.post(
    '/api/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Create an endpoint; the response carries its signing secret, shown this once',
        body: createWebhookBodySchema,
        response: { 201: webhookEndpointWithSecretSchema },
      },
      config: { scope: 'read-write' },
    },
    async (request, reply) => {
      const identity = identityOf(request);
      assertWebhooksPlan(identity);
      assertUrl(request.body.url);
      // The same Idempotency-Key and body create nothing and answer with that endpoint as it is now. Only
      // its id is kept with the key: the secret stays sealed in Postgres, never in clear in Redis.
      let created: (WebhookEndpoint & { secret: string }) | undefined;
      const input = { ...request.body, idempotency_key: idempotencyKeyOf(request) };
      const result = await runIdempotent(deps, identity.org_id, 'webhooks.create', input, async (body) => {
        const { row, secret } = await createEndpoint(prisma, identity.org_id, body, deps.secretBox);
        created = { ...toEndpoint(row), secret };
        return { endpoint_id: row.id };
      });
      if (created) return sendIdempotent(reply, { ...result, body: created });
      const row = await getEndpointRow(prisma, identity.org_id, result.body.endpoint_id);
      return sendIdempotent(reply, { ...result, body: { ...toEndpoint(row), secret: deps.secretBox.open(row.secret, row.id) } });
    },
  );

  app.get(
    '/api/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'List endpoints, newest first',
        querystring: listWebhooksQuerySchema,
        response: { 200: webhookEndpointPageSchema },
      },
      config: { scope: 'read' },
    },
    async (request) => listEndpoints(prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      schema: { tags: ['webhooks'], summary: 'Get one endpoint', params: byId, response: { 200: webhookEndpointSchema } },
      config: { scope: 'read' },
    },
    async (request) => toEndpoint(await getEndpointRow(prisma, identityOf(request).org_id, request.params.id)),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Change an endpoint’s URL, event types or description, or disable and re-enable it',
        params: byId,
        body: updateWebhookBodySchema,
        response: { 200: webhookEndpointSchema },
      },
      config: { scope: 'read-write' },
    },
    async (request) => {
      const identity = identityOf(request);
      assertWebhooksPlan(identity);
      if (request.body.url !== undefined) assertUrl(request.body.url);
      return toEndpoint(await updateEndpoint(prisma, identity.org_id, request.params.id, request.body));
    },
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete an endpoint and its delivery log; pending deliveries are dropped',
        params: byId,
        response: { 200: deletedWebhookSchema },
      },
      config: { scope: 'read-write' },
    },
    async (request) => {
      const identity = identityOf(request);
      assertWebhooksPlan(identity);
      await deleteEndpoint(prisma, identity.org_id, request.params.id);
      return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Issue a new signing secret, shown this once; the old one keeps signing alongside it for a grace period',
        params: byId,
        response: { 200: webhookEndpointWithSecretSchema },
      },
      config: { scope: 'read-write' },
    },
    async (request) => {
      const identity = identityOf(request);
      assertWebhooksPlan(identity);
      const { row, secret } = await rotateSecret(
        prisma,
        identity.org_id,
        request.params.id,
        env.WEBHOOK_SECRET_ROTATION_GRACE_MS,
        deps.secretBox,
      );
      return { ...toEndpoint(row), secret };
    },
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a `webhook.test` event to this endpoint only',
        params: byId,
        response: { 202: webhookDeliverySchema },
      },
      config: { scope: 'read-write' },
    },
    async (request, reply) => {
      const identity = identityOf(request);
      assertWebhooksPlan(identity);
      const endpoint = await getEndpointRow(prisma, identity.org_id, request.params.id);
      if (endpoint.status !== 'enabled') throw new ApiError('conflict', 'The endpoint is disabled; enable it first.', { param: 'id' });
      const delivery = await createTestDelivery(prisma, identity.org_id, endpoint.id);
      await enqueueDeliveries(deps.queue, identity.org_id, [delivery.id], maxAttempts(env.WEBHOOK_RETRY_SCHEDULE_MS) * 2);
      return reply.status(202).send(toDelivery(delivery));
    },
  );
}
