import type { Bus } from '@voice/kit';
import { planLimits, type RpcInput, webhooksRpc } from '@voice/proto';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** How many deliveries the log shows at a time (older ones through the "Older" link's cursor). */
export const deliveriesPerPage = 20;

/**
 * The webhooks service's operations for one person and request. Like keys, the plan comes from the
 * gateway; the webhooks service refuses changes on a plan without webhooks (`plan_required`) itself, the
 * console only uses the plan to say so before anyone tries.
 */
export async function webhooksFor(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string) {
  const { organization, identity } = await personOnGateway(ctx, signedIn, requestId);
  const call = <D extends (typeof webhooksRpc)[keyof typeof webhooksRpc]>(operation: D, input: RpcInput<D>) =>
    ctx.bus.call(operation, identity, input);
  return {
    organization,
    offered: planLimits[organization.plan].webhooks,
    list: async () => (await call(webhooksRpc.listEndpoints, { limit: 100 })).data,
    get: (id: string) => call(webhooksRpc.getEndpoint, { id }),
    deliveries: (id: string, cursor?: string) =>
      call(webhooksRpc.listDeliveries, { id, limit: deliveriesPerPage, ...(cursor ? { cursor } : {}) }),
    create: (input: RpcInput<typeof webhooksRpc.createEndpoint>) => call(webhooksRpc.createEndpoint, input),
    update: (input: RpcInput<typeof webhooksRpc.updateEndpoint>) => call(webhooksRpc.updateEndpoint, input),
    remove: (id: string) => call(webhooksRpc.deleteEndpoint, { id }),
    rotateSecret: (id: string) => call(webhooksRpc.rotateSecret, { id }),
    revealSecret: (id: string) => call(webhooksRpc.revealSecret, { id }),
    sendTest: (id: string) => call(webhooksRpc.sendTestEvent, { id }),
    replay: (id: string, deliveryId: string) => call(webhooksRpc.replayDelivery, { id, delivery_id: deliveryId }),
  };
}
export type OrganizationWebhooks = Awaited<ReturnType<typeof webhooksFor>>;
