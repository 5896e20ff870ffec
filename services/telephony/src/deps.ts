import { connectBusAndRedis, createLogger, type Logger, OutboxRelay, prismaAdapter } from '@voice/kit';
import { type CarrierFor, carrierChoice } from './carrier/choice.js';
import { SandboxCarrier } from './carrier/sandbox.js';
import { TwilioCarrier } from './carrier/twilio.js';
import { DialerQueues } from './dialer/queues.js';
import type { TelephonyContext } from './domain/context.js';
import type { TelephonyEnv } from './env.js';
import { PrismaClient } from './generated/prisma/client.js';

/** Everything the telephony service talks to, made once per process (or per test) and closed in order. */
export interface TelephonyDeps extends TelephonyContext {
  queues: DialerQueues;
  /** Started by buildApp when this process runs it (WORKERS). */
  outbox: OutboxRelay;
  close(): Promise<void>;
}

/** The deployment's carrier for live organizations, and the sandbox simulator that test twins always use. */
function createCarriers(env: TelephonyEnv, queues: DialerQueues): CarrierFor {
  const sandbox = new SandboxCarrier({
    schedule: (step, delayMs) => queues.scheduleSandbox(step, delayMs),
    timeScale: env.SANDBOX_TIME_SCALE,
    segmentPrice: env.SANDBOX_SEGMENT_PRICE,
  });
  if (env.TELEPHONY_CARRIER !== 'twilio') return carrierChoice(sandbox, sandbox);
  // The env schema requires both when the carrier is twilio.
  const twilio = new TwilioCarrier({
    accountSid: env.TWILIO_ACCOUNT_SID ?? '',
    authToken: env.TWILIO_AUTH_TOKEN ?? '',
    apiBaseUrl: env.TWILIO_API_BASE_URL,
    timeoutMs: env.TWILIO_TIMEOUT_MS,
    voiceUrl: env.TWILIO_VOICE_URL,
  });
  return carrierChoice(twilio, sandbox);
}

export async function connectDeps(env: TelephonyEnv, logger: Logger = createLogger('telephony', env.LOG_LEVEL)): Promise<TelephonyDeps> {
  // No JIT: the overview's queries probe many small index ranges, which Postgres estimates high enough to
  // compile (about a second) for a few milliseconds of work; nothing here runs long enough to gain from it.
  const prisma = new PrismaClient({ adapter: prismaAdapter(env.DATABASE_URL, 'telephony', { settings: { jit: 'off' } }) });
  // The Prisma engine (its query compiler is WebAssembly, compiled on first use) gets ready while the other
  // connections are made, rather than on the first query (the first /readyz); a failure here is left to that query.
  prisma.$connect().catch(() => {});
  const { bus, redis } = await connectBusAndRedis(env, { name: 'telephony', logger });
  const outbox = new OutboxRelay({ bus, logger, databaseUrl: env.DATABASE_URL, schema: 'telephony' });
  const queues = new DialerQueues(env);
  const deps: TelephonyDeps = {
    env,
    logger,
    prisma,
    redis,
    bus,
    outbox,
    queues,
    dialer: queues,
    carrierFor: createCarriers(env, queues),
    async close() {
      // The app's close stopped the workers (they finish their current job); now what they used.
      await queues.close();
      await outbox.close();
      await bus.drain();
      await redis.quit().catch(() => redis.disconnect());
      await prisma.$disconnect();
    },
  };
  return deps;
}
