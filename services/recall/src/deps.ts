import { type Bus, connectBusAndRedis, createLogger, FixedWindowLimiter, type Logger, OutboxRelay, prismaAdapter } from '@voice/kit';
import type { Redis } from 'ioredis';
import type { BrandScoreDeps } from './domain/brand-score.js';
import { readBrandPage } from './domain/marketing-audit.js';
import type { PageFetchOptions } from './domain/page-fetch.js';
import type { RecallQueryDeps } from './domain/recall.js';
import type { RecallEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createAnthropicProvider } from './providers/anthropic.js';
import { createOpenAiProvider } from './providers/openai.js';
import type { LlmProvider } from './providers/structured.js';

/** Everything the recall service talks to, made once per process (or per test) and closed in order. */
export interface RecallDeps {
  env: RecallEnv;
  logger: Logger;
  prisma: PrismaClient;
  bus: Bus;
  /** Publishes `recall.brand_scored` events written to the outbox table; started by buildApp (WORKERS). */
  outbox: OutboxRelay;
  redis: Redis;
  /** The configured model providers, OpenAI first; empty when no key is set. */
  providers: LlmProvider[];
  pageFetch: PageFetchOptions;
  auditLimiter: FixedWindowLimiter;
  recall: RecallQueryDeps;
  brandScore: BrandScoreDeps;
  close(): Promise<void>;
}

/** A provider per API key set in the environment. */
export function configuredProviders(env: RecallEnv): LlmProvider[] {
  const providers: LlmProvider[] = [];
  if (env.OPENAI_API_KEY) {
    providers.push(
      createOpenAiProvider({
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL,
        model: env.OPENAI_MODEL,
        maxRetries: env.PROVIDER_MAX_RETRIES,
      }),
    );
  }
  if (env.ANTHROPIC_API_KEY) {
    providers.push(
      createAnthropicProvider({
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL,
        model: env.ANTHROPIC_MODEL,
        maxRetries: env.PROVIDER_MAX_RETRIES,
      }),
    );
  }
  return providers;
}

export async function connectDeps(env: RecallEnv, logger: Logger = createLogger('recall', env.LOG_LEVEL)): Promise<RecallDeps> {
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'recall') });
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while the other
  // connections are made, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const { bus, redis } = await connectBusAndRedis(env, { name: 'recall', logger });
  const outbox = new OutboxRelay({ bus, logger, databaseUrl: env.DATABASE_URL, schema: 'recall' });
  const providers = configuredProviders(env);
  const pageFetch: PageFetchOptions = { timeoutMs: env.PAGE_FETCH_TIMEOUT_MS, maxBytes: env.PAGE_FETCH_MAX_BYTES };
  return {
    env,
    logger,
    prisma,
    bus,
    outbox,
    redis,
    providers,
    pageFetch,
    auditLimiter: new FixedWindowLimiter(redis, {
      prefix: env.REDIS_PREFIX,
      name: 'public-audit',
      limit: env.PUBLIC_AUDIT_LIMIT,
      windowSeconds: env.PUBLIC_AUDIT_WINDOW_SECONDS,
    }),
    recall: { prisma, providers, providerTimeoutMs: env.PROVIDER_TIMEOUT_MS },
    brandScore: {
      providers,
      providerTimeoutMs: env.PROVIDER_TIMEOUT_MS,
      checkPage: env.BRAND_PAGE_CHECK ? (url) => readBrandPage(url, pageFetch) : undefined,
    },
    async close() {
      await outbox.close();
      await bus.drain();
      redis.disconnect();
      await prisma.$disconnect();
    },
  };
}
