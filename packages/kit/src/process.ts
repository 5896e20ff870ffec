import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export interface RunOptions {
  app: FastifyInstance;
  logger: Logger;
  host: string;
  port: number;
  graceMs: number;
  /** Closed in order after the server stops accepting and in-flight requests finish: workers, NATS, Redis, Prisma. */
  closers: Array<() => Promise<unknown>>;
}

/**
 * Listens, then on SIGINT/SIGTERM (or an uncaught error, which crashes the process rather than limping on)
 * stops accepting, finishes in-flight work and closes every connection, within `graceMs`.
 */
export async function runProcess(options: RunOptions): Promise<string> {
  const { app, logger } = options;
  closeWithGrace({ delay: options.graceMs, logger }, async ({ signal, err }) => {
    if (err) logger.fatal({ err }, 'crashing on an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await app.close();
    for (const close of options.closers) {
      await close().catch((error: unknown) => logger.warn({ err: error }, 'error while closing'));
    }
  });
  const address = await app.listen({ host: options.host, port: options.port });
  return address;
}
