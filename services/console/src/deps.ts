import { type Bus, connectBusAndRedis, createLogger, createMailer, FixedWindowLimiter, type Logger, prismaAdapter } from '@voice/kit';
import type { Redis } from 'ioredis';
import type { ConsoleContext } from './domain/context.js';
import type { ConsoleEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';

/**
 * Everything the console talks to, made once per process (or per test) and closed in order. NATS is
 * connected now (and checked by /readyz) because the console's pages reach the other services' data
 * (keys, usage, audit log) through it.
 */
export interface ConsoleDeps extends ConsoleContext {
  redis: Redis;
  bus: Bus;
  close(): Promise<void>;
}

export async function connectDeps(env: ConsoleEnv, logger: Logger = createLogger('console', env.LOG_LEVEL)): Promise<ConsoleDeps> {
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'console') });
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while the other
  // connections are made, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const { bus, redis } = await connectBusAndRedis(env, { name: 'console', logger });
  const limiter = (name: string, limit: number) =>
    new FixedWindowLimiter(redis, { prefix: env.REDIS_PREFIX, name, limit, windowSeconds: env.SIGN_IN_WINDOW_SECONDS });
  const mailer = createMailer(env, logger);
  return {
    env,
    logger,
    prisma,
    redis,
    bus,
    signInLimits: {
      byAddress: limiter('console-sign-in-address', env.SIGN_IN_ADDRESS_LIMIT),
      byAccount: limiter('console-sign-in-account', env.SIGN_IN_ACCOUNT_LIMIT),
    },
    resetLimits: {
      byAddress: limiter('console-reset-address', env.SIGN_IN_ADDRESS_LIMIT),
      byAccount: limiter('console-reset-account', env.SIGN_IN_ACCOUNT_LIMIT),
    },
    mailer,
    now: () => new Date(),
    async close() {
      await mailer.close();
      await bus.drain();
      await redis.quit().catch(() => redis.disconnect());
      await prisma.$disconnect();
    },
  };
}
