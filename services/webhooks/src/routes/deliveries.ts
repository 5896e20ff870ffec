import { type HttpApp, identityOf } from '@voice/kit';
import {
  eventEnvelopeSchema,
  idSchema,
  listDeliveriesQuerySchema,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookDeliveryWithEventSchema,
  webhooksRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { WebhooksDeps } from '../deps.js';
import { replayDelivery } from '../domain/endpoints.js';
import { toDelivery } from '../domain/records.js';
import { getDeliveryWithEvent, listDeliveries } from '../store/deliveries.js';

const byEndpoint = z.object({ id: idSchema('webhook') });
const byDelivery = byEndpoint.extend({ delivery_id: idSchema('delivery') });

export function deliveryRoutes(app: HttpApp, deps: WebhooksDeps): void {
  const { prisma } = deps;

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The delivery log of an endpoint, newest first; `status=failed` lists the dead letters',
        params: byEndpoint,
        querystring: listDeliveriesQuerySchema,
        response: { 200: webhookDeliveryPageSchema },
      },
      config: { operation: webhooksRpc.listDeliveries },
    },
    async (request) => listDeliveries(prisma, identityOf(request).org_id, request.params.id, request.query),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries/:delivery_id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Get one delivery with the event body it sends',
        params: byDelivery,
        response: { 200: webhookDeliveryWithEventSchema },
      },
      config: { scope: 'read', operationId: 'getDelivery' },
    },
    async (request) => {
      const row = await getDeliveryWithEvent(prisma, identityOf(request).org_id, request.params.id, request.params.delivery_id);
      return { ...toDelivery(row), event: eventEnvelopeSchema.parse(JSON.parse(row.event.body)) };
    },
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:delivery_id/replay',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a delivery’s event again, as a new delivery with its own retries (same `webhook-id`)',
        params: byDelivery,
        response: { 202: webhookDeliverySchema },
      },
      config: { operation: webhooksRpc.replayDelivery },
    },
    async (request, reply) =>
      reply.status(202).send(await replayDelivery(deps, identityOf(request), request.params.id, request.params.delivery_id)),
  );
}
