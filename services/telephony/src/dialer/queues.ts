import { bullmqOptions } from '@voice/kit';
import { type JobsOptions, Queue } from 'bullmq';
import type { SandboxStep } from '../carrier/sandbox.js';
import type { DialerQueue } from '../domain/context.js';
import type { TelephonyEnv } from '../env.js';

export const queueNames = { dial: 'dial', sms: 'sms', sandbox: 'sandbox-carrier' } as const;

/**
 * Finished jobs are not the record of anything (Postgres is): completed ones are kept an hour, failed ones
 * the last 5,000 per queue for inspection, so Redis does not grow with traffic.
 */
export const jobRetention = { removeOnComplete: { age: 3_600 }, removeOnFail: { count: 5_000 } } satisfies JobsOptions;

export interface RecordJob {
  orgId: string;
  id: string;
}

/**
 * The dialer's BullMQ queues. Job ids are the record ids, so a call is in the queue at most once however
 * often it is enqueued (request, sweeper, retry); the worker's claim makes a second run a no-op.
 */
export class DialerQueues implements DialerQueue {
  readonly dial: Queue<RecordJob>;
  readonly sms: Queue<RecordJob>;
  readonly sandbox: Queue<SandboxStep>;
  private readonly jobOptions: JobsOptions;

  constructor(env: TelephonyEnv) {
    const common = bullmqOptions(env);
    this.dial = new Queue<RecordJob>(queueNames.dial, common);
    this.sms = new Queue<RecordJob>(queueNames.sms, common);
    this.sandbox = new Queue<SandboxStep>(queueNames.sandbox, common);
    this.jobOptions = {
      attempts: env.DIAL_MAX_ATTEMPTS,
      backoff: { type: 'exponential', delay: env.DIAL_BACKOFF_MS },
      ...jobRetention,
    };
  }

  async enqueueCall(orgId: string, callId: string): Promise<void> {
    await this.dial.add('dial', { orgId, id: callId }, { ...this.jobOptions, jobId: callId });
  }

  async enqueueSms(orgId: string, smsId: string): Promise<void> {
    await this.sms.add('send', { orgId, id: smsId }, { ...this.jobOptions, jobId: smsId });
  }

  /** One step of the sandbox simulation, keyed by record and step so it is scheduled once. */
  async scheduleSandbox(step: SandboxStep, delayMs: number): Promise<void> {
    const recordId = step.kind === 'call' ? step.callId : step.smsId;
    await this.sandbox.add(step.step, step, {
      ...this.jobOptions,
      jobId: `${recordId}-${step.step}`,
      delay: delayMs,
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.dial.close(), this.sms.close(), this.sandbox.close()]);
  }
}
