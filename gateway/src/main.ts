import { assertBackingServices, createLogger, parseProcessEnv, runProcess } from '@voice/kit';
import { buildApp } from './app.js';
import { connectDeps } from './deps.js';
import { envSchema } from './env.js';
import { warnWithoutPersistence } from './quota/persistence.js';

const env = parseProcessEnv(envSchema, 'gateway');
const logger = createLogger('gateway', env.LOG_LEVEL);
await assertBackingServices({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, natsUrl: env.NATS_URL }).catch((error: Error) => {
  logger.fatal(error.message);
  process.exit(1);
});
const deps = await connectDeps(env, { logger });
await warnWithoutPersistence(deps.redis, logger);
const app = await buildApp(deps, { auditWorker: env.AUDIT_WRITER });
await runProcess({ app, logger, host: env.HOST, port: env.PORT, graceMs: env.SHUTDOWN_GRACE_MS, closers: [deps.close] });
