import type { Bus, Logger, OutboxRelay } from '@voice/kit';
import type { Redis } from 'ioredis';
import type { CarrierAdapter } from '../carrier/carrier.js';
import type { TelephonyEnv } from '../env.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** How the domain hands work to the dialer: jobs keyed by record id, so enqueueing twice queues once. */
export interface DialerQueue {
  enqueueCall(orgId: string, callId: string): Promise<void>;
  enqueueSms(orgId: string, smsId: string): Promise<void>;
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
  carrier: CarrierAdapter;
  dialer: DialerQueue;
}
