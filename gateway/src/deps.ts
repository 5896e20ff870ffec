import { type Bus, connectBusAndRedis, createLogger, type Logger, OutboxRelay, prismaAdapter, schemaPoolConfig } from '@voice/kit';
import type { Redis } from 'ioredis';
import pg from 'pg';
import type { GatewayEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';
import { KeyCache, type KeyChange, keyChangesSubject } from './keys/cache.js';
import { findGrantByHash, findTokenGrantByHash } from './keys/store.js';
import { auditedRequests } from './quota/counted-requests.js';
import { type CountedRequests, defineQuotaCommand } from './quota/quota.js';

export interface GatewayDeps {
  env: GatewayEnv;
  logger: Logger;
  prisma: PrismaClient;
  /** One connection for the audit writer's COPY, which Prisma cannot run; opened only when first used. */
  auditPool: pg.Pool;
  /** Fail-fast connection for the request path: commands fail at once while Redis is away. */
  redis: Redis;
  bus: Bus;
  /** Publishes `org.plan_changed` events the admin commands wrote to the outbox table; started by buildApp (WORKERS). */
  outbox: OutboxRelay;
  keys: KeyCache;
  /** OAuth access tokens, cached like keys and dropped by the same broadcasts. */
  tokens: KeyCache;
  /** Where a quota counter Redis does not have is rebuilt from. */
  countedRequests: CountedRequests;
  /** The clock quota periods are computed from; tests move it across month and day boundaries. */
  now: () => Date;
  close(): Promise<void>;
}

export async function connectDeps(env: GatewayEnv, options: { logger?: Logger; now?: () => Date } = {}): Promise<GatewayDeps> {
  const logger = options.logger ?? createLogger('gateway', env.LOG_LEVEL);
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'gateway') });
  const auditPool = new pg.Pool({
    ...schemaPoolConfig(env.DATABASE_URL, 'gateway', { maxConnections: 1 }),
    connectionTimeoutMillis: 5_000,
  });
  // A connection lost while idle is replaced on next use; unhandled, the pool's error would end the process.
  auditPool.on('error', (error) => logger.warn({ err: error }, 'audit database connection lost'));
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while the other
  // connections are made, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const { bus, redis } = await connectBusAndRedis(env, {
    name: 'gateway',
    logger,
    redis: { failFast: true, commandTimeoutMs: env.QUOTA_TIMEOUT_MS },
  });
  defineQuotaCommand(redis);
  const outbox = new OutboxRelay({ bus, logger, databaseUrl: env.DATABASE_URL, schema: 'gateway' });
  const cacheOptions = { ttlMs: env.KEY_CACHE_TTL_MS, unknownTtlMs: Math.min(env.KEY_CACHE_TTL_MS, 2_000), maxEntries: 100_000 };
  const keys = new KeyCache((hash) => findGrantByHash(prisma, hash), cacheOptions);
  const tokens = new KeyCache((hash) => findTokenGrantByHash(prisma, hash), cacheOptions);
  bus.listen(keyChangesSubject, (change) => {
    keys.invalidate(change as KeyChange);
    tokens.invalidate(change as KeyChange);
  });
  return {
    env,
    logger,
    prisma,
    auditPool,
    redis,
    bus,
    outbox,
    keys,
    tokens,
    countedRequests: auditedRequests(prisma),
    now: options.now ?? (() => new Date()),
    async close() {
      await outbox.close();
      await bus.drain();
      redis.disconnect();
      await Promise.all([prisma.$disconnect(), auditPool.end()]);
    },
  };
}
