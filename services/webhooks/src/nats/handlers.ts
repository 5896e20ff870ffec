import { webhooksRpc } from '@voice/proto';
import type { WebhooksDeps } from '../deps.js';
import { toEndpoint } from '../domain/records.js';
import { listDeliveries } from '../store/deliveries.js';
import { getEndpointRow, listEndpoints } from '../store/endpoints.js';

/** The read side of the REST API, for other services. */
export function serveWebhooksRpc(deps: WebhooksDeps): void {
  const { bus, prisma } = deps;
  bus.serve(webhooksRpc.listEndpoints, (input, identity) => listEndpoints(prisma, identity.org_id, input));
  bus.serve(webhooksRpc.getEndpoint, async (input, identity) => toEndpoint(await getEndpointRow(prisma, identity.org_id, input.id)));
  bus.serve(webhooksRpc.listDeliveries, ({ endpoint_id, ...query }, identity) =>
    listDeliveries(prisma, identity.org_id, endpoint_id, query),
  );
}
