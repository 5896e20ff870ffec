import { Bus, connectRedis, createLogger, type Logger, OutboxRelay, prismaAdapter } from '@voice/kit';
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
  const bus = await Bus.connect({
    url: env.NATS_URL,
    streamReplicas: env.JETSTREAM_REPLICAS,
    name: 'leads',
    namespace: env.NATS_NAMESPACE,
    logger,
    secret: env.INTERNAL_SIGNING_SECRET,
  });
  const outbox = new OutboxRelay({ bus, logger, databaseUrl: env.DATABASE_URL, schema: 'leads' });
  const redis = await connectRedis(env, { failFast: true });
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
