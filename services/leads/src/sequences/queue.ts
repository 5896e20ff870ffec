import { bullmqOptions } from '@voice/kit';
import { type JobsOptions, Queue } from 'bullmq';
import type { LeadsEnv } from '../env.js';

export const stepQueueName = 'sequence-steps';

/**
 * Finished jobs are not the record of anything (enrollments in Postgres are): completed ones are kept an
 * hour, failed ones the last 5,000, so Redis does not grow with traffic.
 */
export const jobRetention = { removeOnComplete: { age: 3_600 }, removeOnFail: { count: 5_000 } } satisfies JobsOptions;

/** One job runs one step of one enrollment. */
export interface StepJobData {
  org_id: string;
  enrollment_id: string;
  step: number;
}

export type StepQueue = Queue<StepJobData>;

/** Attempts per step: telephony being briefly unreachable retries the step; after the last, it is recorded as failed. */
export const stepAttempts = 6;

export function createStepQueue(env: LeadsEnv): StepQueue {
  return new Queue<StepJobData>(stepQueueName, bullmqOptions(env));
}

/**
 * The job id names the enrollment and step, so scheduling the same step twice (a retried job, a crash
 * between the database write and the enqueue) leaves one job.
 */
export function stepJobId(enrollmentId: string, step: number): string {
  return `${enrollmentId}-${step}`;
}

export async function scheduleStep(queue: StepQueue, env: LeadsEnv, job: StepJobData & { delaySeconds: number }): Promise<void> {
  await queue.add(
    'step',
    { org_id: job.org_id, enrollment_id: job.enrollment_id, step: job.step },
    {
      jobId: stepJobId(job.enrollment_id, job.step),
      delay: Math.max(0, Math.round(job.delaySeconds * 1000 * env.SEQUENCE_DELAY_SCALE)),
      attempts: stepAttempts,
      backoff: { type: 'exponential', delay: 1_000 },
      ...jobRetention,
    },
  );
}
