import { type HttpApp, idempotencyKeyOf, identityOf, sendIdempotent } from '@voice/kit';
import {
  createWebhookBodySchema,
  deletedWebhookSchema,
  idSchema,
  listWebhooksQuerySchema,
  updateWebhookBodySchema,
  webhookDeliverySchema,
  webhookEndpointPageSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  webhooksRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { WebhooksDeps } from '../deps.js';
import { changeEndpoint, createEndpointOnce, removeEndpoint, rotateEndpointSecret, sendTestEvent } from '../domain/endpoints.js';
import { toEndpoint } from '../domain/records.js';
import { getEndpointRow, listEndpoints } from '../store/endpoints.js';

const byId = z.object({ id: idSchema('webhook') });

export function webhookRoutes(app: HttpApp, deps: WebhooksDeps): void {
  const { prisma } = deps;

  app.post(
    '/api/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Create an endpoint; the response carries its signing secret, shown this once',
        body: createWebhookBodySchema,
        response: { 201: webhookEndpointWithSecretSchema },
      },
      config: { operation: webhooksRpc.createEndpoint },
    },
    async (request, reply) => {
      const input = { ...request.body, idempotency_key: idempotencyKeyOf(request) };
      return sendIdempotent(reply, await createEndpointOnce(deps, identityOf(request), input));
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
      config: { operation: webhooksRpc.listEndpoints },
    },
    async (request) => listEndpoints(prisma, identityOf(request).org_id, request.query),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      schema: { tags: ['webhooks'], summary: 'Get one endpoint', params: byId, response: { 200: webhookEndpointSchema } },
      config: { operation: webhooksRpc.getEndpoint },
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
      config: { operation: webhooksRpc.updateEndpoint },
    },
    async (request) => changeEndpoint(deps, identityOf(request), request.params.id, request.body),
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
      config: { operation: webhooksRpc.deleteEndpoint },
    },
    async (request) => removeEndpoint(deps, identityOf(request), request.params.id),
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
      config: { operation: webhooksRpc.rotateSecret },
    },
    async (request) => rotateEndpointSecret(deps, identityOf(request), request.params.id),
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
      config: { operation: webhooksRpc.sendTestEvent },
    },
    async (request, reply) => reply.status(202).send(await sendTestEvent(deps, identityOf(request), request.params.id)),
  );
}
