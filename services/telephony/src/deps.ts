import { Bus, createLogger, type Logger, prismaAdapter } from '@voice/kit';
import type { TelephonyEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';

/** Everything the telephony service talks to, made once per process (or per test) and closed in order. */
export interface TelephonyDeps {
  env: TelephonyEnv;
  logger: Logger;
  prisma: PrismaClient;
  bus: Bus;
  close(): Promise<void>;
}

export async function connectDeps(env: TelephonyEnv, logger: Logger = createLogger('telephony', env.LOG_LEVEL)): Promise<TelephonyDeps> {
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'telephony') });
  const bus = await Bus.connect({ url: env.NATS_URL, name: 'telephony', namespace: env.NATS_NAMESPACE, logger });
  return {
    env,
    logger,
    prisma,
    bus,
    async close() {
      await bus.drain();
      await prisma.$disconnect();
    },
  };
}
