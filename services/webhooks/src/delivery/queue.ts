import type { JobsOptions, Queue } from 'bullmq';

export const deliveryQueueName = 'webhook-deliveries';

/**
 * Finished jobs are not the record of anything (the delivery log in Postgres is): completed ones are kept
 * an hour, failed ones the last 5,000 per queue, so Redis does not grow with traffic.
 */
export const jobRetention = { removeOnComplete: { age: 3_600 }, removeOnFail: { count: 5_000 } } satisfies JobsOptions;

/** A job carries only ids: the worker reads the endpoint at attempt time, so rotations and disables apply. */
export interface DeliveryJob {
  orgId: string;
  deliveryId: string;
}

/** The backoff type whose waits come from the thrown RetryLater error (the delivery's own schedule). */
export const scheduleBackoff = 'webhook-schedule';

/**
 * Queues attempts for deliveries, of one organization or several, in one call to Redis; a job id that is still
 * waiting, delayed or running is not added twice. BullMQ's own attempt limit is a ceiling only: the worker
 * decides when a delivery is dead from its row.
 */
export async function enqueueJobs(queue: Queue<DeliveryJob>, jobs: readonly DeliveryJob[], maxAttempts: number) {
  if (jobs.length === 0) return;
  await queue.addBulk(
    jobs.map((job) => ({
      name: 'deliver',
      data: job,
      opts: {
        jobId: job.deliveryId,
        attempts: maxAttempts,
        backoff: { type: scheduleBackoff },
        ...jobRetention,
      },
    })),
  );
}

/** enqueueJobs for deliveries of one organization. */
export function enqueueDeliveries(queue: Queue<DeliveryJob>, orgId: string, deliveryIds: readonly string[], maxAttempts: number) {
  return enqueueJobs(
    queue,
    deliveryIds.map((deliveryId) => ({ orgId, deliveryId })),
    maxAttempts,
  );
}
