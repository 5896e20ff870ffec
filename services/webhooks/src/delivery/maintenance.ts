import { everyInterval, type IntervalJob } from '@voice/kit';
import type { WebhooksDeps } from '../deps.js';
import { maxAttempts } from '../domain/retry-schedule.js';
import { deleteExpiredLogOfAllOrganizations, overdueDeliveriesOfAllOrganizations } from '../store/maintenance.js';
import { enqueueDeliveries } from './queue.js';

const batchSize = 500;
const day = 24 * 3_600_000;

/**
 * Postgres is the truth and Redis only the schedule: a pending delivery whose job is gone (Redis lost
 * data) or finished (BullMQ's attempt ceiling hit during a long outage) is queued again, so no delivery
 * is silently dropped. Then finished deliveries past the retention period are deleted.
 */
export async function runMaintenance(deps: WebhooksDeps, now: Date = new Date()) {
  const { prisma, queue, env } = deps;
  const overdue = await overdueDeliveriesOfAllOrganizations(
    prisma,
    new Date(now.getTime() - env.WEBHOOK_MAINTENANCE_INTERVAL_MS),
    batchSize,
  );
  let requeued = 0;
  for (const delivery of overdue) {
    const job = await queue.getJob(delivery.id);
    const state = job ? await job.getState() : 'missing';
    if (state === 'waiting' || state === 'delayed' || state === 'active' || state === 'prioritized') continue;
    if (job) await job.remove();
    await enqueueDeliveries(queue, delivery.orgId, [delivery.id], maxAttempts(env.WEBHOOK_RETRY_SCHEDULE_MS) * 2);
    requeued++;
  }
  const deleted = await deleteExpiredLogOfAllOrganizations(
    prisma,
    new Date(now.getTime() - env.WEBHOOK_LOG_RETENTION_DAYS * day),
    batchSize * 10,
  );
  if (requeued > 0) deps.logger.warn({ requeued }, 'pending deliveries without a queued job were queued again');
  return { requeued, deleted };
}

/**
 * Runs `runMaintenance` every `WEBHOOK_MAINTENANCE_INTERVAL_MS` on one replica at a time (kit's interval job,
 * led through Postgres): a schedule of its own in Redis would go with Redis's data, the very loss this job repairs.
 */
export function startMaintenance(deps: WebhooksDeps): IntervalJob {
  return everyInterval({
    name: 'webhooks.maintenance',
    everyMs: deps.env.WEBHOOK_MAINTENANCE_INTERVAL_MS,
    scope: 'cluster',
    databaseUrl: deps.env.DATABASE_URL,
    runAtStart: true,
    logger: deps.logger,
    run: () => runMaintenance(deps),
  });
}
