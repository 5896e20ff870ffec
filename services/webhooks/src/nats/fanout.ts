import type { BackgroundWork } from '@voice/kit';
import { type EventEnvelope, subscribableEventTypes } from '@voice/proto';
import { batched } from '../delivery/batch.js';
import { enqueueJobs } from '../delivery/queue.js';
import type { WebhooksDeps } from '../deps.js';
import { maxAttempts } from '../domain/retry-schedule.js';
import { recordFanouts } from '../store/deliveries.js';

/** The durable consumer's name: one per purpose, shared by every replica. */
export const fanoutDurable = 'webhooks-fanout';

/**
 * Turns every domain event into one delivery job per subscribed endpoint. The event is acknowledged only
 * after its deliveries are stored and queued; a crash in between redelivers it, and the derived delivery
 * and job ids make that redelivery a no-op for what was already done.
 */
export async function startFanout(deps: WebhooksDeps): Promise<BackgroundWork> {
  // The events in hand that reach this point in the same turn of the event loop share one statement and one
  // call to Redis (see delivery/batch.ts): one each per event was most of fan-out's cost under load (each
  // round trip is a socket write and a wake-up of Postgres or Redis). A failed batch fails each of its
  // events, which JetStream redelivers as before.
  const fanOutTogether = batched(async (events: EventEnvelope[]) => {
    await fanOutEvents(deps, events);
    return events.map(() => undefined);
  });
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
    fanOutTogether,
  );
}

/** Events: store a delivery per subscribed endpoint of each and queue those still pending. Safe to run twice. */
export async function fanOutEvents(deps: WebhooksDeps, events: readonly EventEnvelope[]): Promise<void> {
  const { prisma, queue, env } = deps;
  const pending = await recordFanouts(prisma, events);
  const jobs = events.flatMap((event) => (pending.get(event.id) ?? []).map((deliveryId) => ({ orgId: event.org_id, deliveryId })));
  // BullMQ's attempt limit is only a ceiling (see enqueueJobs); unexpected errors get room to retry too.
  await enqueueJobs(queue, jobs, maxAttempts(env.WEBHOOK_RETRY_SCHEDULE_MS) * 2);
}

/** One event (fanOutEvents): what the test helper and a redelivery do. */
export function fanOut(deps: WebhooksDeps, event: EventEnvelope): Promise<void> {
  return fanOutEvents(deps, [event]);
}
