import type { FixedWindowLimiter, Logger, Mailer } from '@voice/kit';
import type { ConsoleEnv } from '../env.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** What the console's domain operations use; the process's deps satisfy it. */
export interface ConsoleContext {
  env: ConsoleEnv;
  logger: Logger;
  prisma: PrismaClient;
  /** Sign-in attempts per client address and per account (Redis, shared by every replica). */
  signInLimits: { byAddress: FixedWindowLimiter; byAccount: FixedWindowLimiter };
  /** Password reset requests per client address and per account, counted apart from sign-in attempts. */
  resetLimits: { byAddress: FixedWindowLimiter; byAccount: FixedWindowLimiter };
  mailer: Mailer;
  now(): Date;
}
