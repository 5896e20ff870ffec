import type { Redis } from 'ioredis';
import type { Logger } from './logger.js';
import { Bus } from './nats.js';
import { connectRedis, type RedisConnectOptions, type RedisEnv } from './redis.js';

/** What a deployable's bus and Redis connection are made from: its env's NATS and Redis variables. */
export interface BusAndRedisEnv extends RedisEnv {
  NATS_URL: string;
  JETSTREAM_REPLICAS: number;
  NATS_NAMESPACE: string;
  INTERNAL_SIGNING_SECRET: string;
}

/**
 * The process's bus and Redis client, connected at once rather than one after the other: a start waits for
 * the slower of the two. When one fails, the other is closed and the failure thrown.
 */
export async function connectBusAndRedis(
  env: BusAndRedisEnv,
  options: { name: string; logger: Logger; redis?: RedisConnectOptions },
): Promise<{ bus: Bus; redis: Redis }> {
  const [bus, redis] = await Promise.allSettled([
    Bus.connect({
      url: env.NATS_URL,
      streamReplicas: env.JETSTREAM_REPLICAS,
      name: options.name,
      namespace: env.NATS_NAMESPACE,
      logger: options.logger,
      secret: env.INTERNAL_SIGNING_SECRET,
    }),
    connectRedis(env, options.redis ?? { failFast: true }),
  ]);
  if (bus.status === 'fulfilled' && redis.status === 'fulfilled') return { bus: bus.value, redis: redis.value };
  if (bus.status === 'fulfilled') await bus.value.drain().catch(() => {});
  if (redis.status === 'fulfilled') redis.value.disconnect();
  throw bus.status === 'rejected' ? bus.reason : (redis as PromiseRejectedResult).reason;
}
