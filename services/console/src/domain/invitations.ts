import { type Mailer, newId } from '@voice/kit';
import type { Role } from '../generated/prisma/enums.js';
import { claimInvitation, findInvitationByTokenHash } from '../store/invitations.js';
import { findUserByEmail, normalizeEmail } from '../store/users.js';
import type { ConsoleContext } from './context.js';
import { hashPassword } from './passwords.js';
import { type Device, startSession } from './sessions.js';
import { checkPassword, type PasswordCheck } from './sign-in.js';
import { hashToken, newToken } from './tokens.js';

export interface CreatedInvitation {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  expires_at: string;
  /** The one-time link; only its token's hash is stored, so it is shown this once. */
  link: string;
}

export const invitationPath = (token: string) => `/dashboard/invitations/${token}`;

/** A new invitation to the organization. Callers check who may invite (the CLI is the operator). */
export async function createInvitation(
  ctx: Pick<ConsoleContext, 'env' | 'prisma' | 'now'>,
  input: { orgId: string; email: string; role: Role; invitedBy: string | null },
): Promise<CreatedInvitation> {
  const token = newToken();
  const now = ctx.now();
  const invitation = await ctx.prisma.invitation.create({
    data: {
      id: newId('invitation'),
      orgId: input.orgId,
      email: normalizeEmail(input.email),
      role: input.role,
      tokenHash: hashToken(token),
      invitedBy: input.invitedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ctx.env.INVITATION_TTL_MS),
    },
  });
  return {
    id: invitation.id,
    org_id: invitation.orgId,
    email: invitation.email,
    role: invitation.role,
    expires_at: invitation.expiresAt.toISOString(),
    link: new URL(invitationPath(token), ctx.env.PUBLIC_BASE_URL).toString(),
  };
}

/**
 * E-mails an invitation's link to the invited address. The page (or the CLI) that made it shows the link
 * too, as before: whoever uses it first joins, so it may be handed over another way.
 */
export function mailInvitation(
  mailer: Mailer,
  invitation: CreatedInvitation,
  from: { organizationName: string; invitedBy?: string },
): Promise<boolean> {
  const who = from.invitedBy ? `${from.invitedBy} invited you` : 'You are invited';
  return mailer.send({
    to: invitation.email,
    subject: `Join ${from.organizationName} on the Voice console`,
    link: invitation.link,
    text: [
      `${who} to join ${from.organizationName} on the Voice console as ${invitation.role}. To accept, open:`,
      '',
      invitation.link,
      '',
      `The link works once, until ${invitation.expires_at.slice(0, 16).replace('T', ' ')} UTC.`,
      'If you did not expect this invitation, ignore this message.',
    ].join('\n'),
  });
}

export type InvitationState =
  | { state: 'usable'; id: string; orgId: string; email: string; role: Role; hasAccount: boolean; invitedBy: string | null }
  | { state: 'expired' | 'used' | 'unknown' };

/** What the link's page shows: the form, or why the link no longer works. */
export async function inspectInvitation(ctx: ConsoleContext, token: string): Promise<InvitationState> {
  const invitation = await findInvitationByTokenHash(ctx.prisma, hashToken(token));
  if (!invitation) return { state: 'unknown' };
  if (invitation.acceptedAt) return { state: 'used' };
  if (invitation.expiresAt <= ctx.now()) return { state: 'expired' };
  const user = await findUserByEmail(ctx.prisma, invitation.email);
  return {
    state: 'usable',
    id: invitation.id,
    orgId: invitation.orgId,
    email: invitation.email,
    role: invitation.role,
    hasAccount: user !== null,
    invitedBy: invitation.invitedBy,
  };
}

export type AcceptResult =
  | { outcome: 'accepted'; sessionToken: string }
  | Extract<PasswordCheck, { outcome: 'wrong_credentials' | 'throttled' }>
  | { outcome: 'gone' };

/**
 * Accepts an invitation once. A new person sets a name and password; someone who already has an account
 * (a member of another organization) proves it with their password instead. The invitation is claimed and
 * the membership written in one transaction, so two tabs submitting at once make one membership.
 */
export async function acceptInvitation(
  ctx: ConsoleContext,
  token: string,
  input: { name?: string; password: string } & Device,
): Promise<AcceptResult> {
  const invitation = await inspectInvitation(ctx, token);
  if (invitation.state !== 'usable') return { outcome: 'gone' };
  const existing = await findUserByEmail(ctx.prisma, invitation.email);
  if (existing) {
    // The link lets its holder guess the account's password, so the guesses are throttled like sign-in's.
    const check = await checkPassword(ctx, { email: existing.email, password: input.password, clientAddress: input.clientAddress });
    if (check.outcome !== 'correct') return check;
  }
  // Hashed before the transaction: scrypt's tens of milliseconds should not hold row locks.
  const newUser = existing
    ? undefined
    : { id: newId('user'), email: invitation.email, name: (input.name ?? '').trim(), passwordHash: await hashPassword(input.password) };
  const userId = await ctx.prisma.$transaction(async (tx) => {
    if (!(await claimInvitation(tx, invitation.id, ctx.now()))) return undefined;
    const id = existing?.id ?? (newUser && (await tx.user.create({ data: newUser })).id);
    if (!id) return undefined;
    await tx.membership.upsert({
      where: { orgId_userId: { orgId: invitation.orgId, userId: id } },
      create: { id: newId('membership'), orgId: invitation.orgId, userId: id, role: invitation.role },
      update: {},
    });
    return id;
  });
  if (!userId) return { outcome: 'gone' };
  return { outcome: 'accepted', sessionToken: await startSession(ctx, userId, invitation.orgId, input) };
}
