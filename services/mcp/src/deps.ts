import { Bus, createLogger, createMailer, type Logger, type Mailer, OutboxRelay, prismaAdapter } from '@voice/kit';
import { SlackClient } from './channels/slack.js';
import { TelegramBot } from './channels/telegram.js';
import type { McpEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';

/** Everything the mcp service talks to, made once per process (or per test) and closed in order. */
export interface McpDeps {
  env: McpEnv;
  logger: Logger;
  prisma: PrismaClient;
  bus: Bus;
  /** Publishes the events that changes wrote to the outbox table; started by buildApp (WORKERS). */
  outbox: OutboxRelay;
  /** Absent without TELEGRAM_BOT_TOKEN: organizations cannot link Telegram then. */
  telegram: TelegramBot | undefined;
  slack: SlackClient;
  /** Approval requests to the organization's owners and admins; the log instead without SMTP_URL. */
  mailer: Mailer;
  now: () => Date;
  /** Work that outlives its request (Slack interactions answer first, act after); awaited at shutdown. */
  background: Set<Promise<unknown>>;
  close(): Promise<void>;
}

export async function connectDeps(
  env: McpEnv,
  logger: Logger = createLogger('mcp', env.LOG_LEVEL),
  options: { now?: () => Date } = {},
): Promise<McpDeps> {
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'mcp') });
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while NATS
  // connects, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const bus = await Bus.connect({
    url: env.NATS_URL,
    streamReplicas: env.JETSTREAM_REPLICAS,
    name: 'mcp',
    namespace: env.NATS_NAMESPACE,
    logger,
    secret: env.INTERNAL_SIGNING_SECRET,
    requestTimeoutMs: env.RPC_TIMEOUT_MS,
  });
  const outbox = new OutboxRelay({ bus, logger, databaseUrl: env.DATABASE_URL, schema: 'mcp' });
  const background = new Set<Promise<unknown>>();
  const mailer = createMailer(env, logger);
  const deps: McpDeps = {
    env,
    logger,
    prisma,
    bus,
    outbox,
    telegram: env.TELEGRAM_BOT_TOKEN
      ? new TelegramBot({ token: env.TELEGRAM_BOT_TOKEN, apiBaseUrl: env.TELEGRAM_API_BASE_URL, timeoutMs: env.MESSAGING_TIMEOUT_MS })
      : undefined,
    slack: new SlackClient({ botToken: env.SLACK_BOT_TOKEN, apiBaseUrl: env.SLACK_API_BASE_URL, timeoutMs: env.MESSAGING_TIMEOUT_MS }),
    mailer,
    now: options.now ?? (() => new Date()),
    background,
    async close() {
      await Promise.allSettled([...background]);
      await mailer.close();
      await outbox.close();
      await bus.drain();
      await prisma.$disconnect();
    },
  };
  return deps;
}

/** Runs work after the response, tracked so shutdown waits for it; a failure is logged, never thrown. */
export function inBackground(deps: McpDeps, what: string, work: () => Promise<unknown>): void {
  const task = work()
    .catch((error: unknown) => deps.logger.error({ err: error }, `${what} failed`))
    .finally(() => deps.background.delete(task));
  deps.background.add(task);
}
