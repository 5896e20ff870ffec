import { ApiError, type Bus } from '@voice/kit';
import { gatewayRpc, type Identity } from '@voice/proto';
import type { ConsoleContext } from './context.js';
import { hashPassword } from './passwords.js';
import type { SignedIn } from './sessions.js';
import { checkPassword, type PasswordCheck } from './sign-in.js';

/** A live session of the person, as the account page lists it. */
export interface SessionView {
  id: string;
  userAgent: string | null;
  clientAddress: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  current: boolean;
}

/** The person's sessions that still work (not revoked, idle or past their end), the last used first. */
export async function listSessions(ctx: ConsoleContext, signedIn: SignedIn): Promise<SessionView[]> {
  const now = ctx.now();
  const rows = await ctx.prisma.session.findMany({
    where: { userId: signedIn.user.id, revokedAt: null, idleExpiresAt: { gt: now }, absoluteExpiresAt: { gt: now } },
    orderBy: [{ lastSeenAt: 'desc' }, { createdAt: 'desc' }],
    // Sessions end within hours; a person with more than this open at once is shown the latest.
    take: 100,
  });
  return rows.map((row) => ({
    id: row.publicId,
    userAgent: row.userAgent,
    clientAddress: row.clientAddress,
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt,
    current: row.idHash === signedIn.sessionHash,
  }));
}

/** Ends one of the person's own sessions; any other id (another person's, an ended one) is `not_found`. */
export async function endSession(ctx: ConsoleContext, signedIn: SignedIn, sessionId: string): Promise<void> {
  const ended = await ctx.prisma.session.updateMany({
    where: { publicId: sessionId, userId: signedIn.user.id, revokedAt: null },
    data: { revokedAt: ctx.now() },
  });
  if (ended.count === 0) throw new ApiError('not_found', 'No such session of yours.');
}

export async function renameSelf(ctx: ConsoleContext, signedIn: SignedIn, name: string): Promise<void> {
  await ctx.prisma.user.update({ where: { id: signedIn.user.id }, data: { name } });
}

/** The person's current password, checked and throttled as sign-in is, so a borrowed session cannot guess it. */
export function checkCurrentPassword(
  ctx: ConsoleContext,
  signedIn: SignedIn,
  password: string,
  clientAddress: string,
): Promise<PasswordCheck> {
  return checkPassword(ctx, { email: signedIn.user.email, password, clientAddress });
}

/** Sets the person's new password (after `checkCurrentPassword`); every other session of theirs ends, this one stays. */
export async function changePassword(ctx: ConsoleContext, signedIn: SignedIn, newPassword: string): Promise<void> {
  const passwordHash = await hashPassword(newPassword);
  const now = ctx.now();
  await ctx.prisma.$transaction([
    ctx.prisma.user.update({ where: { id: signedIn.user.id }, data: { passwordHash } }),
    ctx.prisma.session.updateMany({
      where: { userId: signedIn.user.id, revokedAt: null, idHash: { not: signedIn.sessionHash } },
      data: { revokedAt: now },
    }),
  ]);
}

/**
 * Renames the organization at the gateway, which owns it (`gatewayRpc.renameOrganization`, for the person's
 * identity, so always their current organization). Owners only: admins write too, but the name is the
 * organization's identity, as choosing its owners is.
 */
export async function renameOrganization(ctx: { bus: Bus }, signedIn: SignedIn, identity: Identity, name: string) {
  if (signedIn.role !== 'owner') throw new ApiError('forbidden', 'Only owners can rename the organization.');
  return ctx.bus.call(gatewayRpc.renameOrganization, identity, { name });
}
