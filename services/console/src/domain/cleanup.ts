import { type BackgroundWork, everyInterval } from '@voice/kit';
import type { ConsoleContext } from './context.js';

/** Ended sessions and dead invitations are kept this long (for a support question), then deleted. */
const keepEndedMs = 30 * 24 * 60 * 60_000;

/**
 * Deletes sessions that ended (revoked, idle or past their absolute end), invitations that expired
 * unused, password reset links, OAuth codes and refresh tokens past their expiry, 30 days after the fact:
 * nothing reads them (an expired link, code or refresh token is refused whether its row exists or not), and
 * the tables would otherwise only grow. Each statement is a plain DELETE by time, so one replica at a time runs it.
 */
export async function deleteEndedRecords(
  ctx: Pick<ConsoleContext, 'prisma' | 'now'>,
): Promise<{ sessions: number; invitations: number; passwordResets: number; oauthCodes: number; oauthRefreshTokens: number }> {
  const before = new Date(ctx.now().getTime() - keepEndedMs);
  const sessions = await ctx.prisma.session.deleteMany({
    where: { OR: [{ revokedAt: { lt: before } }, { idleExpiresAt: { lt: before } }, { absoluteExpiresAt: { lt: before } }] },
  });
  const invitations = await ctx.prisma.invitation.deleteMany({ where: { acceptedAt: null, expiresAt: { lt: before } } });
  const passwordResets = await ctx.prisma.passwordReset.deleteMany({ where: { expiresAt: { lt: before } } });
  const oauthCodes = await ctx.prisma.oAuthCode.deleteMany({ where: { expiresAt: { lt: before } } });
  const oauthRefreshTokens = await ctx.prisma.oAuthRefreshToken.deleteMany({ where: { expiresAt: { lt: before } } });
  return {
    sessions: sessions.count,
    invitations: invitations.count,
    passwordResets: passwordResets.count,
    oauthCodes: oauthCodes.count,
    oauthRefreshTokens: oauthRefreshTokens.count,
  };
}

/** The `cleanup` worker: deleteEndedRecords every `intervalMs`, on one replica at a time. */
export function startCleanup(
  ctx: Pick<ConsoleContext, 'prisma' | 'now' | 'logger'>,
  settings: { intervalMs: number; databaseUrl: string },
): BackgroundWork {
  return everyInterval({
    name: 'console.cleanup',
    everyMs: settings.intervalMs,
    scope: 'cluster',
    databaseUrl: settings.databaseUrl,
    logger: ctx.logger,
    run: () => deleteEndedRecords(ctx),
  });
}
