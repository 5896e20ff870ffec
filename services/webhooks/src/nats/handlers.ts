import { webhooksRpc } from '@voice/proto';
import type { WebhooksDeps } from '../deps.js';
import {
  changeEndpoint,
  createEndpointOnce,
  removeEndpoint,
  replayDelivery,
  revealEndpointSecret,
  rotateEndpointSecret,
  sendTestEvent,
} from '../domain/endpoints.js';
import { toEndpoint } from '../domain/records.js';
import { listDeliveries, listRecordEvents } from '../store/deliveries.js';
import { getEndpointRow, listEndpoints } from '../store/endpoints.js';

/**
 * The REST API's operations for other services and the console: each handler calls the domain function its
 * route calls; `bus.serve` checks each one's scope. Creation honours `idempotency_key` like the REST header.
 */
export function serveWebhooksRpc(deps: WebhooksDeps): void {
  const { bus, prisma } = deps;
  bus.serve(webhooksRpc.listEndpoints, (input, identity) => listEndpoints(prisma, identity.org_id, input));
  bus.serve(webhooksRpc.getEndpoint, async (input, identity) => toEndpoint(await getEndpointRow(prisma, identity.org_id, input.id)));
  bus.serve(webhooksRpc.createEndpoint, async (input, identity) => (await createEndpointOnce(deps, identity, input)).body);
  bus.serve(webhooksRpc.updateEndpoint, ({ id, ...input }, identity) => changeEndpoint(deps, identity, id, input));
  bus.serve(webhooksRpc.deleteEndpoint, ({ id }, identity) => removeEndpoint(deps, identity, id));
  bus.serve(webhooksRpc.rotateSecret, ({ id }, identity) => rotateEndpointSecret(deps, identity, id));
  bus.serve(webhooksRpc.revealSecret, ({ id }, identity) => revealEndpointSecret(deps, identity, id));
  bus.serve(webhooksRpc.sendTestEvent, ({ id }, identity) => sendTestEvent(deps, identity, id));
  bus.serve(webhooksRpc.listDeliveries, ({ endpoint_id, ...query }, identity) =>
    listDeliveries(prisma, identity.org_id, endpoint_id, query),
  );
  bus.serve(webhooksRpc.listRecordEvents, ({ record_id }, identity) => listRecordEvents(prisma, identity.org_id, record_id));
  bus.serve(webhooksRpc.replayDelivery, ({ id, delivery_id }, identity) => replayDelivery(deps, identity, id, delivery_id));
}
