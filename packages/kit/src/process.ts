import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { assertBackingServices } from './dependencies.js';
import { type BaseEnv, parseProcessEnv } from './env.js';
import { type MetricsServer, metricsRegistryOf, startMetricsServer } from './health.js';
import { createLogger } from './logger.js';
import { closeBullmqConnections, type RedisMode } from './redis.js';
import { activeTracing } from './trace.js';

export interface RunOptions {
  app: FastifyInstance;
  logger: Logger;
  host: string;
  port: number;
  graceMs: number;
  /**
   * Closed in order after the app closed (it stops accepting, finishes in-flight requests, and its onClose
   * hooks stop the background work): the connections, NATS, Redis, Prisma.
   */
  closers: Array<() => Promise<unknown>>;
  /** Serve the app's metrics on this port of their own (the gateway's, whose main port is public). */
  metricsPort?: number | undefined;
}

/**
 * Listens, then on SIGINT/SIGTERM (or an uncaught error, which crashes the process rather than limping on)
 * stops accepting, finishes in-flight work and closes every connection, within `graceMs`.
 */
export async function runProcess(options: RunOptions): Promise<string> {
  const { app, logger } = options;
  let metricsServer: MetricsServer | undefined;
  closeWithGrace({ delay: options.graceMs, logger }, async ({ signal, err }) => {
    if (err) logger.fatal({ err }, 'crashing on an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await app.close();
    await metricsServer?.close();
    for (const close of options.closers) {
      await close().catch((error: unknown) => logger.warn({ err: error }, 'error while closing'));
    }
  });
  const address = await app.listen({ host: options.host, port: options.port });
  if (options.metricsPort !== undefined) {
    metricsServer = await startMetricsServer(metricsRegistryOf(app), options.host, options.metricsPort);
    logger.info({ url: metricsServer.url }, 'metrics served on their own port');
  }
  return address;
}

/** The process variables runService reads; every deployable's env schema has them (baseEnvSchema and PORT). */
export interface ServiceEnv {
  HOST: string;
  PORT: number;
  LOG_LEVEL: BaseEnv['LOG_LEVEL'];
  SHUTDOWN_GRACE_MS: number;
  DATABASE_URL: string;
  REDIS_URL: string;
  REDIS_MODE: RedisMode;
  REDIS_SENTINEL_NAME?: string | undefined;
  NATS_URL: string;
  /** Where the metrics are served when not on PORT (the gateway's; see RunOptions.metricsPort). */
  METRICS_PORT?: number;
}

export interface ServiceOptions {
  /** The backing services checked before connecting (a readable message and exit 1 when one is down); all three by default. */
  uses?: ReadonlyArray<'postgres' | 'redis' | 'nats'>;
}

/**
 * A deployable's process, the same for all six: parse the environment (a bad or missing variable, a
 * production secret left at its development value, ends the process naming them), check that the backing
 * services answer while connecting the dependencies, build the app (its routes, readiness checks and the background
 * work `WORKERS` enables), listen, and on SIGTERM close the app (then its workers) and the dependencies.
 */
export async function runService<S extends z.ZodObject, D extends { close(): Promise<void> }>(
  name: string,
  envSchema: S,
  connect: (env: z.infer<S> & ServiceEnv, logger: Logger) => Promise<D>,
  buildApp: (deps: D) => Promise<FastifyInstance>,
  options: ServiceOptions = {},
): Promise<string> {
  const env = parseProcessEnv(envSchema, name) as z.infer<S> & ServiceEnv;
  const logger = createLogger(name, env.LOG_LEVEL);
  const uses = new Set(options.uses ?? ['postgres', 'redis', 'nats']);
  // The check runs beside the connections rather than before them: a start with every service up does not
  // wait for it, and one with a service down still ends within the check's 3 s with its readable line (the
  // connections' own retries would take longer, and say less).
  const checked = assertBackingServices({
    ...(uses.has('postgres') ? { databaseUrl: env.DATABASE_URL } : {}),
    ...(uses.has('redis') ? { redisUrl: env.REDIS_URL, redisMode: env.REDIS_MODE, redisSentinelName: env.REDIS_SENTINEL_NAME } : {}),
    ...(uses.has('nats') ? { natsUrl: env.NATS_URL } : {}),
  }).catch((error: Error) => {
    logger.fatal(error.message);
    process.exit(1);
  });
  let deps: D;
  try {
    deps = await connect(env, logger);
  } catch (error) {
    // A connection that failed first: the check's line, when it finds the service down, says it better.
    await checked;
    throw error;
  }
  await checked;
  const app = await buildApp(deps);
  return runProcess({
    app,
    logger,
    host: env.HOST,
    port: env.PORT,
    graceMs: env.SHUTDOWN_GRACE_MS,
    // Tracing last: the spans of the shutdown's own work are exported too.
    closers: [deps.close, closeBullmqConnections, async () => activeTracing()?.shutdown()],
    metricsPort: env.METRICS_PORT,
  });
}
