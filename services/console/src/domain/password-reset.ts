import { findUserByEmail } from '../store/users.js';
import type { ConsoleContext } from './context.js';
import { hashPassword } from './passwords.js';
import { type Device, startSession } from './sessions.js';
import { accountSubject } from './sign-in.js';
import { hashToken, newToken } from './tokens.js';

export const passwordResetPath = (token: string) => `/dashboard/reset-password/${token}`;

export type ResetRequestResult = { outcome: 'requested' } | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * "Forgot password?": when the address is an account's, a one-time link is e-mailed. The answer is the same
 * whether or not it is (`requested`), and takes as long (the e-mail goes out in the background), so the form
 * tells no one who has an account. Requests are counted per client address and per address asked for, known
 * or not, as sign-in attempts are, so the form cannot flood a mailbox or the SMTP server.
 */
export async function requestPasswordReset(
  ctx: ConsoleContext,
  input: { email: string; clientAddress: string },
): Promise<ResetRequestResult> {
  const decisions = await Promise.all([
    ctx.resetLimits.byAddress.take(input.clientAddress),
    ctx.resetLimits.byAccount.take(accountSubject(input.email)),
  ]);
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length > 0)
    return { outcome: 'throttled', retryAfterSeconds: Math.max(...refused.map((decision) => decision.resetInSeconds)) };

  const user = await findUserByEmail(ctx.prisma, input.email);
  if (!user) return { outcome: 'requested' };
  const token = newToken();
  const now = ctx.now();
  await ctx.prisma.passwordReset.create({
    data: {
      tokenHash: hashToken(token),
      userId: user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ctx.env.PASSWORD_RESET_TTL_MS),
    },
  });
  const link = new URL(passwordResetPath(token), ctx.env.PUBLIC_BASE_URL).toString();
  const minutes = Math.round(ctx.env.PASSWORD_RESET_TTL_MS / 60_000);
  void ctx.mailer.send({
    to: user.email,
    subject: 'Reset your Voice console password',
    link,
    text: [
      `Hello ${user.name},`,
      '',
      'Someone (we hope you) asked to reset the password of your Voice console account. To choose a new one, open:',
      '',
      link,
      '',
      `The link works once, for ${minutes} minutes. Using it signs you out everywhere else.`,
      'If you did not ask for it, ignore this message: your password stays as it is.',
    ].join('\n'),
  });
  return { outcome: 'requested' };
}

export type ResetLinkState = { state: 'usable'; email: string } | { state: 'expired' | 'used' | 'unknown' };

/** What the link's page shows: the new-password form, or why the link no longer works. */
export async function inspectPasswordReset(ctx: ConsoleContext, token: string): Promise<ResetLinkState> {
  const reset = await ctx.prisma.passwordReset.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } });
  if (!reset) return { state: 'unknown' };
  if (reset.usedAt) return { state: 'used' };
  if (reset.expiresAt <= ctx.now()) return { state: 'expired' };
  return { state: 'usable', email: reset.user.email };
}

/**
 * Sets the new password with the link, once: the link is claimed, the password written, every session of
 * the person ended and their other reset links spent, in one transaction (two tabs submitting at once set
 * one password). Then a new session starts for this browser. `gone` when the link was used, expired or never
 * existed.
 */
export async function resetPassword(
  ctx: ConsoleContext,
  token: string,
  input: { password: string } & Device,
): Promise<{ outcome: 'reset'; sessionToken: string } | { outcome: 'gone' }> {
  // Hashed before the transaction: scrypt's tens of milliseconds should not hold row locks.
  const passwordHash = await hashPassword(input.password);
  const now = ctx.now();
  const userId = await ctx.prisma.$transaction(async (tx) => {
    const reset = await tx.passwordReset.findUnique({ where: { tokenHash: hashToken(token) } });
    if (!reset) return undefined;
    const claimed = await tx.passwordReset.updateMany({
      where: { tokenHash: reset.tokenHash, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (claimed.count !== 1) return undefined;
    await tx.user.update({ where: { id: reset.userId }, data: { passwordHash } });
    await tx.session.updateMany({ where: { userId: reset.userId, revokedAt: null }, data: { revokedAt: now } });
    await tx.passwordReset.updateMany({ where: { userId: reset.userId, usedAt: null }, data: { usedAt: now } });
    return reset.userId;
  });
  if (!userId) return { outcome: 'gone' };
  return { outcome: 'reset', sessionToken: await startSession(ctx, userId, undefined, input) };
}
