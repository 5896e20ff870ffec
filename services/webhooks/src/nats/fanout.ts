import { type EventEnvelope, subscribableEventTypes } from '@voice/proto';
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
  await deps.bus.consume(
    { durable: fanoutDurable, types: subscribableEventTypes, ackWaitMs: deps.env.WEBHOOK_FANOUT_ACK_WAIT_MS },
    (event) => fanOut(deps, event),
  );
}

/** One event: store a delivery per subscribed endpoint and queue those still pending. Safe to run twice. */
export async function fanOut(deps: WebhooksDeps, event: EventEnvelope): Promise<void> {
  const { prisma, queue, env } = deps;
  const endpointIds = await subscribedEndpointIds(prisma, event.org_id, event.type);
  const pending = await recordFanout(prisma, event.org_id, event, endpointIds);
  // BullMQ's attempt limit is only a ceiling (see enqueueDeliveries); unexpected errors get room to retry too.
  await enqueueDeliveries(queue, event.org_id, pending, maxAttempts(env.WEBHOOK_RETRY_SCHEDULE_MS) * 2);
}
