import { subscribableEventTypes } from '@voice/proto';
import { enqueueDeliveries } from '../delivery/queue.js';
import type { WebhooksDeps } from '../deps.js';
import { maxAttempts } from '../domain/retry-schedule.js';
import { recordFanout } from '../store/deliveries.js';
import { subscribedEndpointIds } from '../store/endpoints.js';

/** The durable consumer's name: one per purpose, shared by every replica. */
export const fanoutDurable = 'webhooks-fanout';

/**
 * Turns every domain event into one delivery job per subscribed endpoint. The event is acknowledged only
 * after its deliveries are stored and queued; a crash in between redelivers it, and the derived delivery
 * and job ids make that redelivery a no-op for what was already done.
 */
export async function startFanout(deps: WebhooksDeps): Promise<void> {
  const { bus, prisma, queue, env } = deps;
  // BullMQ's attempt limit is only a ceiling (see enqueueDeliveries); unexpected errors get room to retry too.
  const attemptCeiling = maxAttempts(env.WEBHOOK_RETRY_SCHEDULE_MS) * 2;
  await bus.consume({ durable: fanoutDurable, types: subscribableEventTypes, ackWaitMs: env.WEBHOOK_FANOUT_ACK_WAIT_MS }, async (event) => {
    const endpointIds = await subscribedEndpointIds(prisma, event.org_id, event.type);
    const pending = await recordFanout(prisma, event.org_id, event, endpointIds);
    await enqueueDeliveries(queue, event.org_id, pending, attemptCeiling);
  });
}
