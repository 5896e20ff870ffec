import { assertBackingServices, createLogger, parseProcessEnv, runProcess } from '@voice/kit';
import { buildApp, startDeliveries } from './app.js';
import { connectDeps } from './deps.js';
import { envSchema } from './env.js';

const env = parseProcessEnv(envSchema, 'webhooks');
const logger = createLogger('webhooks', env.LOG_LEVEL);
await assertBackingServices({ databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, natsUrl: env.NATS_URL }).catch((error: Error) => {
  logger.fatal(error.message);
  process.exit(1);
});
const deps = await connectDeps(env, logger);
const app = await buildApp(deps);
const worker = await startDeliveries(deps);
// Stop taking events first, then let in-flight attempts finish, then close the connections.
await runProcess({
  app,
  logger,
  host: env.HOST,
  port: env.PORT,
  graceMs: env.SHUTDOWN_GRACE_MS,
  closers: [() => deps.bus.drain(), worker.close, deps.close],
});
