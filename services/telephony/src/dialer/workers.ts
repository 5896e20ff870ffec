import { type BackgroundWork, everyInterval, type Logger } from '@voice/kit';
import { type BullmqWorker, startBullmqWorker } from '@voice/kit/bullmq';
import { type Job, UnrecoverableError } from 'bullmq';
import { CarrierError } from '../carrier/carrier.js';
import type { SandboxStep } from '../carrier/sandbox.js';
import { dialCall, failCall, failStuckCalls } from '../domain/calls.js';
import type { DialerQueue, TelephonyContext } from '../domain/context.js';
import { playCallStep, playSmsStep } from '../domain/simulation.js';
import { deliverSms, failSms } from '../domain/sms.js';
import { staleQueuedCalls } from '../store/calls.js';
import { staleQueuedSms } from '../store/sms.js';
import { type DialerQueues, queueNames, type RecordJob } from './queues.js';

const isLastAttempt = (job: Job) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/**
 * Carrier errors: a refusal (bad number, unverified caller id) fails the record at once; an outage is
 * thrown back to BullMQ, which retries with exponential back-off, and fails the record after the last try.
 */
async function withCarrierRetries(job: Job, work: () => Promise<unknown>, giveUp: (code: string, message: string) => Promise<unknown>) {
  try {
    await work();
  } catch (error) {
    const carrierError = error instanceof CarrierError ? error : undefined;
    if (carrierError && !carrierError.retryable) {
      await giveUp(carrierError.code, carrierError.message);
      throw new UnrecoverableError(carrierError.message);
    }
    if (isLastAttempt(job)) await giveUp(carrierError?.code ?? 'carrier_error', (error as Error).message);
    throw error;
  }
}

export async function processDialJob(context: TelephonyContext, job: Job<RecordJob>) {
  const { orgId, id } = job.data;
  await withCarrierRetries(
    job,
    () => dialCall(context, orgId, id),
    (code) => failCall(context, orgId, id, code),
  );
}

export async function processSmsJob(context: TelephonyContext, job: Job<RecordJob>) {
  const { orgId, id } = job.data;
  await withCarrierRetries(
    job,
    () => deliverSms(context, orgId, id),
    (code, message) => failSms(context, orgId, id, { code, message }),
  );
}

/**
 * Plays the sandbox simulation one step at a time (domain/simulation.ts); each step schedules the next. The
 * steps are a test twin's in every deployment, and every call's and message's with the sandbox carrier.
 */
export async function processSandboxStep(context: TelephonyContext, queues: Pick<DialerQueue, 'scheduleSandbox'>, step: SandboxStep) {
  if (step.kind === 'sms') await playSmsStep(context, queues, step);
  else await playCallStep(context, queues, step);
}

export interface DialerWorkers {
  close(): Promise<void>;
}

/**
 * Starts the dialer: workers for calls, messages and the sandbox simulation, plus a sweeper that re-enqueues
 * queued records whose job was lost and fails calls stuck past their deadline. A crashed worker's jobs are
 * picked up again by BullMQ's stalled-job check; every step is idempotent by record id.
 */
export function startDialer(context: TelephonyContext, queues: DialerQueues, logger: Logger): DialerWorkers {
  const start = <D>(queue: string, processor: (job: Job<D>) => Promise<unknown>): BullmqWorker<D> =>
    startBullmqWorker<D>({
      queue,
      processor,
      env: context.env,
      logger,
      options: { concurrency: context.env.DIAL_CONCURRENCY },
    });
  const workers: BackgroundWork[] = [
    start<RecordJob>(queueNames.dial, (job) => processDialJob(context, job)),
    start<RecordJob>(queueNames.sms, (job) => processSmsJob(context, job)),
  ];
  // Whatever the deployment's carrier: test twins' calls and messages are always simulated (carrier/choice.ts).
  workers.push(start<SandboxStep>(queueNames.sandbox, (job) => processSandboxStep(context, queues, job.data)));

  // An interval job, not a Redis job: it must run when Redis has lost every job, and so from start.
  const sweep = everyInterval({
    name: 'telephony.dialer-sweep',
    everyMs: context.env.DIAL_SWEEP_INTERVAL_MS,
    scope: 'cluster',
    databaseUrl: context.env.DATABASE_URL,
    runAtStart: true,
    logger,
    run: async () => {
      const olderThan = new Date(Date.now() - context.env.DIAL_SWEEP_INTERVAL_MS);
      for (const call of await staleQueuedCalls(context.prisma, olderThan)) await queues.enqueueCall(call.orgId, call.id);
      for (const sms of await staleQueuedSms(context.prisma, olderThan)) await queues.enqueueSms(sms.orgId, sms.id);
      await failStuckCalls(context);
    },
  });

  return {
    async close() {
      await Promise.all([sweep.close(), ...workers.map((worker) => worker.close())]);
    },
  };
}
