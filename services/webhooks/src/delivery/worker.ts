import { inSpan, spanKind } from '@voice/kit';
import { startBullmqWorker } from '@voice/kit/bullmq';
import type { Job } from 'bullmq';
import type { WebhooksDeps } from '../deps.js';
import { decideOutcome } from '../domain/outcome.js';
import { signingSecrets } from '../domain/records.js';
import { signedHeaders } from '../domain/signature.js';
import { attemptResult, type DeliveryMetrics } from '../metrics.js';
import {
  type AttemptRecord,
  type AttemptRow,
  abandon,
  loadAttempt,
  loadAttempts,
  recordFailure,
  recordSuccess,
  recordSuccesses,
} from '../store/deliveries.js';
import { disableEndpoint, markFailing, markHealthy } from '../store/endpoints.js';
import { batched } from './batch.js';
import { postJson } from './post.js';
import { type DeliveryJob, deliveryQueueName, scheduleBackoff } from './queue.js';

/** Thrown to have BullMQ run the job again after `delayMs`: the wait the delivery's schedule gives. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
  }
}

const excerptChars = 255;

/** An attempt's first read and its last write when it succeeds: one query each, or batched (startDeliveryWorker). */
export interface AttemptStore {
  load(orgId: string, deliveryId: string): Promise<AttemptRow | null>;
  succeeded(orgId: string, id: string, attempt: AttemptRecord): Promise<void>;
}

/** One statement per call. */
export function directAttemptStore(deps: Pick<WebhooksDeps, 'prisma'>): AttemptStore {
  return {
    load: (orgId, deliveryId) => loadAttempt(deps.prisma, orgId, deliveryId),
    succeeded: (orgId, id, attempt) => recordSuccess(deps.prisma, orgId, id, attempt),
  };
}

/** The calls of one event-loop turn in one statement (see batch.ts): what the worker's attempts use. */
export function batchedAttemptStore(deps: Pick<WebhooksDeps, 'prisma'>): AttemptStore {
  const load = batched(async (keys: Array<{ orgId: string; deliveryId: string }>) => {
    const rows = await loadAttempts(deps.prisma, keys);
    return keys.map((key) => rows.get(key.deliveryId) ?? null);
  });
  const succeeded = batched(async (done: Array<{ orgId: string; id: string; attempt: AttemptRecord }>) => {
    await recordSuccesses(deps.prisma, done);
    return done.map(() => undefined);
  });
  return {
    load: (orgId, deliveryId) => load({ orgId, deliveryId }),
    succeeded: (orgId, id, attempt) => succeeded({ orgId, id, attempt }),
  };
}

/**
 * One attempt of one delivery. The delivery row is the truth: a job whose delivery already succeeded or
 * failed (a job run twice after a crash) does nothing, so a receiver gets an event at least once and,
 * outside crashes, exactly once per attempt. `metrics` counts the attempt and, when it ends the delivery, its outcome.
 */
export async function attemptDelivery(
  deps: WebhooksDeps,
  job: DeliveryJob,
  metrics?: DeliveryMetrics,
  store: AttemptStore = directAttemptStore(deps),
): Promise<string> {
  const { prisma, env } = deps;
  const delivery = await store.load(job.orgId, job.deliveryId);
  if (delivery?.status !== 'pending') return 'nothing to do';
  const { endpoint, event } = delivery;
  if (endpoint.status !== 'enabled') {
    await abandon(prisma, job.orgId, delivery.id, 'endpoint_disabled');
    metrics?.ended('abandoned', delivery.attemptCount);
    return 'endpoint disabled';
  }
  const startedAt = new Date();
  // From the event, or from a replay's creation: a replay of last week's event is not a week late.
  const since = delivery.replayOf === null ? event.createdAt : delivery.createdAt;
  const secondsSince = (at: Date) => (at.getTime() - since.getTime()) / 1000;
  if (delivery.attemptCount === 0) metrics?.firstAttempt(secondsSince(startedAt));
  // webhook-id is the event id: the same on every retry and replay, so receivers can deduplicate.
  const headers = signedHeaders(signingSecrets(endpoint, startedAt, deps.secretBox), event.id, event.body, startedAt);
  // The POST is a client span of our trace, but its request carries none of our trace headers: the receiver is
  // a customer's server, outside the platform. A `traceparent` would hand them our trace and span ids (and,
  // through `tracestate`, whatever vendor state a client sent us), and a receiver that traces would file our
  // delivery under our trace id; webhook-id is the identifier they get, as the README documents. So the POST
  // goes through node:http, which no instrumentation patches, and nothing is injected here.
  const target = new URL(endpoint.url);
  const result = await inSpan(
    'webhook POST',
    {
      kind: spanKind.client,
      attributes: {
        'http.request.method': 'POST',
        'server.address': target.hostname,
        'url.scheme': target.protocol.replace(':', ''),
        'voice.webhook.endpoint_id': endpoint.id,
        'voice.webhook.delivery_id': delivery.id,
        'voice.webhook.attempt': delivery.attemptCount + 1,
        'voice.service': 'webhooks',
      },
    },
    async (span) => {
      const posted = await postJson(
        endpoint.url,
        event.body,
        { ...headers },
        {
          timeoutMs: env.WEBHOOK_TIMEOUT_MS,
          allowPrivateAddresses: env.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES,
          excerptChars,
        },
      );
      if (posted.kind === 'response') span?.setAttribute('http.response.status_code', posted.status);
      else span?.setAttribute('error.type', posted.error);
      return posted;
    },
  );
  const at = new Date();
  metrics?.attempted(attemptResult(result));
  const attempts = delivery.attemptCount + 1;
  const record = {
    at,
    responseStatus: result.kind === 'response' ? result.status : null,
    responseExcerpt: result.kind === 'response' ? result.excerpt : null,
    lastError: result.kind === 'error' ? result.error : null,
  };
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
    await store.succeeded(job.orgId, delivery.id, record);
    metrics?.ended('delivered', attempts, secondsSince(at));
    if (endpoint.failingSince !== null) await markHealthy(prisma, job.orgId, endpoint.id);
    return `delivered (${result.status})`;
  }
  const failingSince = await markFailing(prisma, job.orgId, endpoint.id, startedAt);
  const outcome = decideOutcome(result, delivery.attemptCount + 1, failingSince, at, {
    retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS,
    disableAfterFailingMs: env.WEBHOOK_DISABLE_AFTER_FAILING_MS,
  });
  switch (outcome.kind) {
    case 'succeeded':
      throw new Error('unreachable: a 2xx is handled above');
    case 'gone':
      await disableEndpoint(prisma, job.orgId, endpoint.id, 'endpoint_gone');
      await recordFailure(prisma, job.orgId, delivery.id, record, null);
      metrics?.ended('failed', attempts);
      deps.logger.info({ endpoint_id: endpoint.id, delivery_id: delivery.id }, 'endpoint answered 410; disabled');
      return 'endpoint gone; disabled';
    case 'dead':
      if (outcome.disableEndpoint) {
        await disableEndpoint(prisma, job.orgId, endpoint.id, 'failing');
        deps.logger.info({ endpoint_id: endpoint.id, failing_since: failingSince }, 'endpoint failing too long; disabled');
      }
      await recordFailure(prisma, job.orgId, delivery.id, record, null);
      metrics?.ended('failed', attempts);
      return 'dead letter';
    case 'retry':
      await recordFailure(prisma, job.orgId, delivery.id, record, new Date(at.getTime() + outcome.delayMs));
      throw new RetryLater(outcome.delayMs, `attempt ${delivery.attemptCount + 1} failed: ${record.lastError ?? record.responseStatus}`);
  }
}

export interface DeliveryWorker {
  close(): Promise<void>;
}

/** Runs delivery attempts from the queue, `WEBHOOK_DELIVERY_CONCURRENCY` at a time (kit's supervised BullMQ worker). */
export function startDeliveryWorker(deps: WebhooksDeps, metrics?: DeliveryMetrics): DeliveryWorker {
  const { env, logger } = deps;
  const store = batchedAttemptStore(deps);
  return startBullmqWorker<DeliveryJob, string>({
    queue: deliveryQueueName,
    processor: (job: Job<DeliveryJob, string>) => attemptDelivery(deps, job.data, metrics, store),
    env,
    logger,
    options: {
      concurrency: env.WEBHOOK_DELIVERY_CONCURRENCY,
      lockDuration: env.WEBHOOK_WORKER_LOCK_MS,
      stalledInterval: env.WEBHOOK_WORKER_LOCK_MS,
      // A delivery whose worker died is picked up again rather than failed: at least once, even across crashes.
      maxStalledCount: 100,
      settings: {
        backoffStrategy: (attemptsMade, type, error) => {
          if (type === scheduleBackoff && error instanceof RetryLater) return error.delayMs;
          // An unexpected error (database down…): try again soon, backing off to a minute.
          return Math.min(60_000, 1_000 * 2 ** attemptsMade);
        },
      },
    },
    // A RetryLater is a delivery's own schedule, not a failure to report.
    failures: { fields: (job) => ({ delivery_id: job.data.deliveryId }), expected: (error) => error instanceof RetryLater },
  });
}
