import { type Bus, connectBusAndRedis, createLogger, type Logger, OutboxRelay, prismaAdapter } from '@voice/kit';
import type { Redis } from 'ioredis';
import type { LeadsEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createStepQueue, type StepQueue } from './sequences/queue.js';

/** Everything the leads service talks to, made once per process (or per test) and closed in order. */
export interface LeadsDeps {
  env: LeadsEnv;
  logger: Logger;
  prisma: PrismaClient;
  bus: Bus;
  /** Publishes the events that changes wrote to the outbox table; started by buildApp (WORKERS). */
  outbox: OutboxRelay;
  /** Idempotency keys of creates. */
  redis: Redis;
  /** Delayed jobs that run sequence steps. */
  stepQueue: StepQueue;
  close(): Promise<void>;
}

export async function connectDeps(env: LeadsEnv, logger: Logger = createLogger('leads', env.LOG_LEVEL)): Promise<LeadsDeps> {
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'leads') });
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while the other
  // connections are made, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const { bus, redis } = await connectBusAndRedis(env, { name: 'leads', logger });
  const outbox = new OutboxRelay({ bus, logger, databaseUrl: env.DATABASE_URL, schema: 'leads' });
  const stepQueue = createStepQueue(env);
  return {
    env,
    logger,
    prisma,
    bus,
    outbox,
    redis,
    stepQueue,
    async close() {
      await outbox.close();
      await bus.drain();
      await stepQueue.close();
      redis.disconnect();
      await prisma.$disconnect();
    },
  };
}
