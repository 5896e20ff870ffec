import type { Bus, Logger, OutboxRelay } from '@voice/kit';
import type { Redis } from 'ioredis';
import type { CarrierFor } from '../carrier/choice.js';
import type { SandboxStep } from '../carrier/sandbox.js';
import type { TelephonyEnv } from '../env.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** How the domain hands work to the dialer: jobs keyed by record id, so enqueueing twice queues once. */
export interface DialerQueue {
  enqueueCall(orgId: string, callId: string): Promise<void>;
  enqueueSms(orgId: string, smsId: string): Promise<void>;
  /** One step of the sandbox simulation, keyed by record and step, so it is scheduled once. */
  scheduleSandbox(step: SandboxStep, delayMs: number): Promise<void>;
}

/** What the domain operations use; the process's deps satisfy it. */
export interface TelephonyContext {
  env: TelephonyEnv;
  logger: Logger;
  prisma: PrismaClient;
  bus: Bus;
  /** Publishes the events that changes wrote to the outbox table; nudged after each such commit. */
  outbox: Pick<OutboxRelay, 'nudge'>;
  redis: Redis;
  /**
   * The carrier of an organization's calls and messages (carrier/choice.ts): the sandbox simulator for a
   * test twin, the configured carrier for a live organization. There is no other way to reach a carrier.
   */
  carrierFor: CarrierFor;
  dialer: DialerQueue;
}
