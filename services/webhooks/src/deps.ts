import type { UrlPolicy } from '@voice/kit';
import { type Bus, bullmqOptions, connectBusAndRedis, createLogger, type Logger, prismaAdapter } from '@voice/kit';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type DeliveryJob, deliveryQueueName } from './delivery/queue.js';
import { SecretBox } from './domain/secret-box.js';
import type { WebhooksEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';

/** Everything the webhooks service talks to, made once per process (or per test) and closed in order. */
export interface WebhooksDeps {
  env: WebhooksEnv;
  logger: Logger;
  prisma: PrismaClient;
  bus: Bus;
  /** For `Idempotency-Key` records. */
  redis: Redis;
  /** Where delivery jobs go; the worker (delivery/worker.ts) takes them. */
  queue: Queue<DeliveryJob>;
  urlPolicy: UrlPolicy;
  /** Seals endpoint secrets at rest. */
  secretBox: SecretBox;
  close(): Promise<void>;
}

export async function connectDeps(env: WebhooksEnv, logger: Logger = createLogger('webhooks', env.LOG_LEVEL)): Promise<WebhooksDeps> {
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'webhooks') });
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while the other
  // connections are made, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const { bus, redis } = await connectBusAndRedis(env, { name: 'webhooks', logger });
  const queue = new Queue<DeliveryJob>(deliveryQueueName, bullmqOptions(env));
  queue.on('error', (error) => logger.warn({ err: error }, 'delivery queue error'));
  return {
    env,
    logger,
    prisma,
    bus,
    redis,
    queue,
    secretBox: new SecretBox(env.WEBHOOK_SECRET_ENCRYPTION_KEY),
    urlPolicy: {
      requireHttps: env.WEBHOOKS_REQUIRE_HTTPS ?? env.NODE_ENV === 'production',
      allowPrivateAddresses: env.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES,
    },
    async close() {
      await bus.drain();
      await queue.close();
      await redis.quit().catch(() => redis.disconnect());
      await prisma.$disconnect();
    },
  };
}
