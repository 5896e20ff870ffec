import { everyInterval, type IntervalJob } from '@voice/kit';
import type { LeadsDeps } from '../deps.js';
import { findOverdueEnrollments } from '../store/enrollments.js';
import { scheduleStep, stepJobId } from './queue.js';

/** A step this late has lost its job (an enqueue that failed after the write, a Redis flush, a job that gave up). */
const overdueAfterMs = 60_000;

/**
 * Puts back the job of every active enrollment whose next step is overdue. Scheduling is keyed by
 * enrollment and step, and running a step checks the enrollment is still at it, so a sweep that races a
 * live job (or another replica's sweep) cannot run a step twice. Returns how many jobs it put back.
 */
export async function sweepOverdueSteps(deps: LeadsDeps, now: Date = new Date()): Promise<number> {
  const overdue = await findOverdueEnrollments(deps.prisma, new Date(now.getTime() - overdueAfterMs), 500);
  let rescheduled = 0;
  for (const enrollment of overdue) {
    const job = await deps.stepQueue.getJob(stepJobId(enrollment.id, enrollment.currentStep));
    if (job) {
      const state = await job.getState();
      // Waiting, delayed or running: it will run. Finished without moving the enrollment on: replace it.
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
      await job.remove();
    }
    await scheduleStep(deps.stepQueue, deps.env, {
      org_id: enrollment.orgId,
      enrollment_id: enrollment.id,
      step: enrollment.currentStep,
      delaySeconds: 0,
    });
    rescheduled++;
  }
  if (rescheduled > 0) deps.logger.warn({ rescheduled }, 'sequence steps without a job were scheduled again');
  return rescheduled;
}

/** Sweeps now and then every SEQUENCE_SWEEP_INTERVAL_MS, on one replica at a time. */
export function startSweeper(deps: LeadsDeps): IntervalJob {
  return everyInterval({
    name: 'leads.sequence-sweep',
    everyMs: deps.env.SEQUENCE_SWEEP_INTERVAL_MS,
    scope: 'cluster',
    databaseUrl: deps.env.DATABASE_URL,
    runAtStart: true,
    logger: deps.logger,
    run: () => sweepOverdueSteps(deps),
  });
}
