import { createHash } from 'node:crypto';
import { findUserByEmail, normalizeEmail } from '../store/users.js';
import type { ConsoleContext } from './context.js';
import { decoyHash, verifyPassword } from './passwords.js';
import { type Device, startSession } from './sessions.js';

export type PasswordCheck =
  | { outcome: 'correct'; userId: string }
  /** The same for an unknown address and a wrong password, so the answer does not reveal accounts. */
  | { outcome: 'wrong_credentials' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export type SignInResult = Exclude<PasswordCheck, { outcome: 'correct' }> | { outcome: 'signed_in'; token: string };

/** The account's throttle subject: a digest, so Redis holds no e-mail addresses. */
export const accountSubject = (email: string) => createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 32);

/**
 * Checks an e-mail address and password, wherever a password is asked for. Attempts are counted per client
 * address and per account before the password is checked (so parallel guesses count too); past either
 * limit the answer says when to try again. A correct password clears the account's count, not the address's.
 */
export async function checkPassword(
  ctx: ConsoleContext,
  input: { email: string; password: string; clientAddress: string },
): Promise<PasswordCheck> {
  const subject = accountSubject(input.email);
  const decisions = await Promise.all([ctx.signInLimits.byAddress.take(input.clientAddress), ctx.signInLimits.byAccount.take(subject)]);
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length > 0)
    return { outcome: 'throttled', retryAfterSeconds: Math.max(...refused.map((decision) => decision.resetInSeconds)) };

  const user = await findUserByEmail(ctx.prisma, input.email);
  // An unknown address costs a full hash too, so both failures take about as long.
  const matches = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash()));
  if (!user || !matches) return { outcome: 'wrong_credentials' };
  await ctx.signInLimits.byAccount.reset(subject);
  return { outcome: 'correct', userId: user.id };
}

export async function signIn(ctx: ConsoleContext, input: { email: string; password: string } & Device): Promise<SignInResult> {
  const check = await checkPassword(ctx, input);
  if (check.outcome !== 'correct') return check;
  return { outcome: 'signed_in', token: await startSession(ctx, check.userId, undefined, input) };
}
