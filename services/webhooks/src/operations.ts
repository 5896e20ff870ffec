// What each operation of `webhooksRpc` does, over REST and NATS alike: endpoints, their deliveries, and a
// record's events for the console. Each takes the caller's identity (for the organization) and validated input.
import type { OperationHandlers, ServeOptions } from '@voice/kit';
import { eventEnvelopeSchema, type webhooksRpc } from '@voice/proto';
import type { WebhooksDeps } from './deps.js';
import {
  addEndpoint,
  changeEndpoint,
  createdEndpoint,
  removeEndpoint,
  replayDelivery,
  revealEndpointSecret,
  rotateEndpointSecret,
  sendTestEvent,
} from './domain/endpoints.js';
import { toDelivery, toEndpoint } from './domain/records.js';
import { triggerTestEvent } from './domain/trigger.js';
import { getDeliveryWithEvent, listDeliveries, listRecordEvents } from './store/deliveries.js';
import { getEndpointRow, listEndpoints } from './store/endpoints.js';

export function webhooksOperations(deps: WebhooksDeps): OperationHandlers<typeof webhooksRpc> {
  const { prisma } = deps;
  return {
    listEndpoints: (input, identity) => listEndpoints(prisma, identity.org_id, input),
    getEndpoint: async ({ id }, identity) => toEndpoint(await getEndpointRow(prisma, identity.org_id, id)),
    // Idempotent by its definition; its key keeps the endpoint's id only (`webhooksServeOptions`).
    createEndpoint: (input, identity) => addEndpoint(deps, identity, input),
    updateEndpoint: ({ id, ...changes }, identity) => changeEndpoint(deps, identity, id, changes),
    deleteEndpoint: ({ id }, identity) => removeEndpoint(deps, identity, id),
    rotateSecret: ({ id }, identity) => rotateEndpointSecret(deps, identity, id),
    revealSecret: ({ id }, identity) => revealEndpointSecret(deps, identity, id),
    sendTestEvent: ({ id }, identity) => sendTestEvent(deps, identity, id),
    listDeliveries: ({ id, ...query }, identity) => listDeliveries(prisma, identity.org_id, id, query),
    getDelivery: async ({ id, delivery_id }, identity) => {
      const row = await getDeliveryWithEvent(prisma, identity.org_id, id, delivery_id);
      return { ...toDelivery(row), event: eventEnvelopeSchema.parse(JSON.parse(row.event.body)) };
    },
    replayDelivery: ({ id, delivery_id }, identity) => replayDelivery(deps, identity, id, delivery_id),
    listRecordEvents: ({ record_id }, identity) => listRecordEvents(prisma, identity.org_id, record_id),
    triggerEvent: ({ event_type }, identity) => triggerTestEvent(deps, identity, event_type),
  };
}

/** A created endpoint's idempotency key keeps its id, never its signing secret. */
export function webhooksServeOptions(deps: WebhooksDeps): ServeOptions<typeof webhooksRpc> {
  return { remember: { createEndpoint: createdEndpoint(deps) } };
}
