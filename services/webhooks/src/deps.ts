import type { UrlPolicy } from '@voice/kit';
import { Bus, bullmqOptions, connectRedis, createLogger, type Logger, prismaAdapter } from '@voice/kit';
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
  const bus = await Bus.connect({
    url: env.NATS_URL,
    streamReplicas: env.JETSTREAM_REPLICAS,
    name: 'webhooks',
    namespace: env.NATS_NAMESPACE,
    logger,
    secret: env.INTERNAL_SIGNING_SECRET,
  });
  const redis = await connectRedis(env, { failFast: true });
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
