import { bullmqOptions, startBullmqWorker } from '@voice/kit';
import { Queue } from 'bullmq';
import type { WebhooksDeps } from '../deps.js';
import { maxAttempts } from '../domain/retry-schedule.js';
import { deleteExpiredLogOfAllOrganizations, overdueDeliveriesOfAllOrganizations } from '../store/maintenance.js';
import { enqueueDeliveries, jobRetention } from './queue.js';

export const maintenanceQueueName = 'webhook-maintenance';

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

export interface Maintenance {
  close(): Promise<void>;
}

const schedulerId = 'webhook-maintenance';

/**
 * Creates the maintenance job scheduler if Redis does not have it: at start, and again on every replica's
 * timer. The scheduler lives only in Redis, so a Redis that restarts without its data loses it, and with
 * it every future run; re-creating it "at each run" cannot work, as no run comes any more. An existing
 * scheduler is left alone, so replicas checking it do not shift its schedule. A new one runs at once.
 */
export async function ensureMaintenanceScheduler(queue: Queue, intervalMs: number): Promise<boolean> {
  if (await queue.getJobScheduler(schedulerId)) return false;
  await queue.upsertJobScheduler(schedulerId, { every: intervalMs }, { name: 'maintain', opts: jobRetention });
  return true;
}

/** Runs `runMaintenance` every `WEBHOOK_MAINTENANCE_INTERVAL_MS` on one replica at a time (a BullMQ job scheduler). */
export async function startMaintenance(deps: WebhooksDeps): Promise<Maintenance> {
  const { env, logger } = deps;
  const options = bullmqOptions(env);
  const queue = new Queue(maintenanceQueueName, options);
  queue.on('error', (error) => logger.warn({ err: error }, 'maintenance queue error'));
  await ensureMaintenanceScheduler(queue, env.WEBHOOK_MAINTENANCE_INTERVAL_MS);
  const worker = startBullmqWorker({
    queue: maintenanceQueueName,
    processor: async () => runMaintenance(deps),
    env,
    logger,
    options: { concurrency: 1 },
    listen(worker) {
      worker.on('failed', (_job, error) => logger.warn({ err: error }, 'webhook maintenance failed; next run retries'));
      worker.on('error', (error) => logger.warn({ err: error }, 'maintenance worker error'));
    },
  });
  const check = setInterval(() => {
    ensureMaintenanceScheduler(queue, env.WEBHOOK_MAINTENANCE_INTERVAL_MS).then(
      (created) => created && logger.warn('webhook maintenance scheduler was missing from Redis (data lost?); created again'),
      (error: unknown) => logger.warn({ err: error }, 'webhook maintenance scheduler not checked'),
    );
  }, env.WEBHOOK_MAINTENANCE_INTERVAL_MS);
  check.unref();
  return {
    async close() {
      clearInterval(check);
      await worker.close();
      await queue.close();
    },
  };
}
