import { scrapedValue } from '@voice/kit';
import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PostResult } from './delivery/post.js';
import type { DeliveryJob } from './delivery/queue.js';

/** The BullMQ states a delivery job waits or runs in; completed jobs are not the log of anything (the table is). */
const queueStates = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;

/** What an attempt came to, as a bounded label: the status class of the receiver's answer, or why none came. */
export type AttemptResult = '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | Extract<PostResult, { kind: 'error' }>['error'];

const attemptResults: readonly AttemptResult[] = [
  '1xx',
  '2xx',
  '3xx',
  '4xx',
  '5xx',
  'timeout',
  'address_not_allowed',
  'dns_failed',
  'connection_failed',
  'tls_failed',
  'request_failed',
];

export function attemptResult(posted: PostResult): AttemptResult {
  if (posted.kind === 'error') return posted.error;
  const hundreds = Math.floor(posted.status / 100);
  // A status outside 100–599 comes from a broken receiver; it is a failed attempt like a 5xx.
  return hundreds >= 1 && hundreds <= 5 ? (`${hundreds}xx` as AttemptResult) : '5xx';
}

/** How a delivery ended: received (a 2xx), failed for good (no retry left, 410, endpoint failing too long), or abandoned (endpoint disabled before its attempt). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'abandoned';

/**
 * The webhooks service's metrics: attempts by result, the time from an event to its first attempt (the
 * platform's part: outbox, JetStream, fan-out, queue; the delivery SLO is on it) and to the receiver's 2xx
 * (with the receiver's own failures and the retry schedule), attempts per finished delivery, and the
 * delivery queue's jobs by state (read from Redis at scrape time).
 */
export class DeliveryMetrics {
  private readonly attempts: Counter<'result'>;
  private readonly firstAttemptDelay: Histogram;
  private readonly latency: Histogram;
  private readonly attemptsPerDelivery: Histogram<'outcome'>;

  constructor(registry: Registry, queue: Queue<DeliveryJob>) {
    this.attempts = new Counter({
      name: 'webhooks_delivery_attempts_total',
      help: "Delivery attempts by result: the receiver's status class (2xx is a success), or timeout, connection_failed, dns_failed, tls_failed, address_not_allowed, request_failed",
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of attemptResults) this.attempts.inc({ result }, 0);
    this.firstAttemptDelay = new Histogram({
      name: 'webhooks_delivery_first_attempt_delay_seconds',
      help: "Time from an event (a replay's creation, for a replay) to its delivery's first attempt, in seconds: the platform's part of a delivery",
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'webhooks_delivery_latency_seconds',
      help: "Time from an event (a replay's creation, for a replay) to the receiver's 2xx, retries included, in seconds",
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 21600, 86400, 259200],
      registers: [registry],
    });
    this.attemptsPerDelivery = new Histogram({
      name: 'webhooks_attempts_per_delivery',
      help: 'Attempts a delivery took, observed when it ends, by outcome: delivered, failed (for good), abandoned (endpoint disabled)',
      labelNames: ['outcome'],
      buckets: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      registers: [registry],
    });
    const counts = scrapedValue(registry, 'delivery_queue', () => queue.getJobCounts(...queueStates));
    new Gauge({
      name: 'webhooks_delivery_queue_jobs',
      help: 'Delivery jobs in the BullMQ queue by state: waiting, prioritized, delayed (a retry waiting for its time), active, failed (BullMQ gave up)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const read = await counts();
        this.reset();
        if (read) for (const state of queueStates) this.set({ state }, read[state] ?? 0);
      },
    });
  }

  /** A first attempt starts, `seconds` after its event. */
  firstAttempt(seconds: number): void {
    this.firstAttemptDelay.observe(Math.max(0, seconds));
  }

  attempted(result: AttemptResult): void {
    this.attempts.inc({ result });
  }

  /** A delivery ended after `attempts` attempts; `latencySeconds` from its event, when the receiver took it. */
  ended(outcome: DeliveryOutcome, attempts: number, latencySeconds?: number): void {
    this.attemptsPerDelivery.observe({ outcome }, attempts);
    if (outcome === 'delivered' && latencySeconds !== undefined) this.latency.observe(Math.max(0, latencySeconds));
  }
}
