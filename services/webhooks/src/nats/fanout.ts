import type { BackgroundWork } from '@voice/kit';
import { type EventEnvelope, subscribableEventTypes } from '@voice/proto';
import { enqueueDeliveries } from '../delivery/queue.js';
import type { WebhooksDeps } from '../deps.js';
import { maxAttempts } from '../domain/retry-schedule.js';
import { recordFanout } from '../store/deliveries.js';

/** The durable consumer's name: one per purpose, shared by every replica. */
export const fanoutDurable = 'webhooks-fanout';

/**
 * Turns every domain event into one delivery job per subscribed endpoint. The event is acknowledged only
 * after its deliveries are stored and queued; a crash in between redelivers it, and the derived delivery
 * and job ids make that redelivery a no-op for what was already done.
 */
export async function startFanout(deps: WebhooksDeps): Promise<BackgroundWork> {
  // One pull subscription on the shared durable, handling up to WEBHOOK_FANOUT_CONCURRENCY events at once
  // (webhooks promise no order, as with Stripe and Svix). Eight subscriptions of one event each cost the
  // client and the server eight pull loops and buffers for the same work.
  return deps.bus.consume(
    {
      durable: fanoutDurable,
      types: subscribableEventTypes,
      ackWaitMs: deps.env.WEBHOOK_FANOUT_ACK_WAIT_MS,
      // Fan-out fails only while Postgres or Redis is down; keep retrying (30 s apart at most) for days
      // rather than drop an event a customer's endpoint is owed.
      maxDeliver: 10_000,
      concurrency: deps.env.WEBHOOK_FANOUT_CONCURRENCY,
    },
    (event) => fanOut(deps, event),
  );
}

/** One event: store a delivery per subscribed endpoint and queue those still pending. Safe to run twice. */
export async function fanOut(deps: WebhooksDeps, event: EventEnvelope): Promise<void> {
  const { prisma, queue, env } = deps;
  const pending = await recordFanout(prisma, event.org_id, event);
  // BullMQ's attempt limit is only a ceiling (see enqueueDeliveries); unexpected errors get room to retry too.
  await enqueueDeliveries(queue, event.org_id, pending, maxAttempts(env.WEBHOOK_RETRY_SCHEDULE_MS) * 2);
}
