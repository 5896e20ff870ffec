import { ApiError } from '@voice/kit';
import type { gatewayRpc, Mode, RpcOutput } from '@voice/proto';
import type { Role } from '../generated/prisma/enums.js';
import { findMembership, listUserMemberships } from '../store/memberships.js';
import { findLiveSession, revokeSession, revokeUserSessions } from '../store/sessions.js';
import type { ConsoleContext } from './context.js';
import { hashToken, newToken } from './tokens.js';

// What a signed-in request carries is declared here, with the request, so the modules that fill it in
// (domain/organizations.ts) import this one and not the other way round.
type GatewayOrganization = RpcOutput<typeof gatewayRpc.getOrganization>;

/** What the gateway said of the person's organizations for this request. */
export interface OrganizationsSeen {
  /** Each organization's name by id; an organization the gateway did not answer for is missing. */
  names: ReadonlyMap<string, string>;
  /** The current organization (plan, key limits), when the gateway answered for it. */
  current?: GatewayOrganization;
}

/** A signed-in request: who, in which organization, with which role, and the form token of the session. */
export interface SignedIn {
  sessionHash: string;
  csrfToken: string;
  user: { id: string; name: string; email: string; timeZone: string };
  /** The browser's language (Accept-Language), set by http/session.ts; with `user.timeZone`, how pages format. */
  locale?: string;
  /** A done action's message for this page view (http/flash.ts), shown by the layout as a toast. */
  toast?: string | undefined;
  /** The current organization: always the live one, whose members and settings these are (see `mode`). */
  orgId: string;
  role: Role;
  /**
   * The session's "Test data" switch: in `test`, the data pages show and change the organization's test twin
   * (domain/identity.ts's `personIdentity`); memberships, members, invitations and the account stay `orgId`'s.
   */
  mode: Mode;
  /** Every organization of the user, for the switcher. */
  memberships: Array<{ orgId: string; role: Role }>;
  /** What the gateway said of those organizations for this request (names; the current one's plan), set by http/session.ts. */
  organizations?: OrganizationsSeen;
  /** How many of the organization's approvals wait for a person, for the navigation; set by http/session.ts for pages. */
  pendingApprovals?: number;
}

/** Writing `last_seen_at` on every page view would be a write per request; within a minute is precise enough. */
const touchEveryMs = 60_000;

/** Where a session was started, so the person recognizes it on the account page. */
export interface Device {
  clientAddress: string;
  userAgent?: string | undefined;
}

/** A User-Agent is the sender's text: kept short enough for a table cell and a row. */
const userAgentMaxLength = 512;

/**
 * Starts a session in the given organization or the user's first; returns the cookie's token (kept only as a
 * hash).
 */
export async function startSession(ctx: ConsoleContext, userId: string, orgId?: string, device?: Device): Promise<string> {
  const memberships = await listUserMemberships(ctx.prisma, userId);
  const current = memberships.find((membership) => membership.orgId === orgId) ?? memberships[0];
  if (!current) throw new ApiError('forbidden', 'This account belongs to no organization any more.');
  const token = newToken();
  const now = ctx.now();
  const absoluteExpiresAt = new Date(now.getTime() + ctx.env.SESSION_ABSOLUTE_TIMEOUT_MS);
  await ctx.prisma.session.create({
    data: {
      idHash: hashToken(token),
      userId,
      currentOrgId: current.orgId,
      csrfSecret: newToken(),
      clientAddress: device?.clientAddress ?? null,
      userAgent: device?.userAgent?.slice(0, userAgentMaxLength) ?? null,
      createdAt: now,
      lastSeenAt: now,
      idleExpiresAt: earliest(new Date(now.getTime() + ctx.env.SESSION_IDLE_TIMEOUT_MS), absoluteExpiresAt),
      absoluteExpiresAt,
    },
  });
  return token;
}

const earliest = (left: Date, right: Date) => (left < right ? left : right);

/**
 * The session a cookie's token opens, or undefined when it is unknown, revoked, idle too long or past its
 * absolute end. Moves the idle end forward, and checks the membership on every request, so a removed member
 * loses the organization at once (the session moves to another of the user's organizations, or ends).
 */
export async function resumeSession(ctx: ConsoleContext, token: string): Promise<SignedIn | undefined> {
  const now = ctx.now();
  const idHash = hashToken(token);
  const session = await findLiveSession(ctx.prisma, idHash, now);
  if (!session) return undefined;
  const memberships = await listUserMemberships(ctx.prisma, session.userId);
  const current = memberships.find((membership) => membership.orgId === session.currentOrgId) ?? memberships[0];
  if (!current) {
    await revokeSession(ctx.prisma, idHash, now);
    return undefined;
  }
  if (current.orgId !== session.currentOrgId || now.getTime() - session.lastSeenAt.getTime() >= touchEveryMs) {
    await ctx.prisma.session.update({
      where: { idHash },
      data: {
        currentOrgId: current.orgId,
        lastSeenAt: now,
        idleExpiresAt: earliest(new Date(now.getTime() + ctx.env.SESSION_IDLE_TIMEOUT_MS), session.absoluteExpiresAt),
      },
    });
  }
  return {
    sessionHash: idHash,
    csrfToken: session.csrfSecret,
    user: session.user,
    orgId: current.orgId,
    role: current.role,
    mode: session.mode,
    memberships,
  };
}

/**
 * Turns the session's "Test data" switch on or off. Any member may: it changes only which of the
 * organization's data this session shows, as switching organizations does; it outlives an organization switch.
 */
export async function switchMode(ctx: ConsoleContext, signedIn: SignedIn, mode: Mode): Promise<void> {
  await ctx.prisma.session.update({ where: { idHash: signedIn.sessionHash }, data: { mode } });
}

/** Moves the session to another of the user's organizations; any other organization id is refused. */
export async function switchOrganization(ctx: ConsoleContext, signedIn: SignedIn, orgId: string): Promise<void> {
  const membership = await findMembership(ctx.prisma, orgId, signedIn.user.id);
  if (!membership) throw new ApiError('not_found', 'You are not a member of that organization.');
  await ctx.prisma.session.update({ where: { idHash: signedIn.sessionHash }, data: { currentOrgId: orgId } });
}

export async function signOut(ctx: ConsoleContext, signedIn: SignedIn): Promise<void> {
  await revokeSession(ctx.prisma, signedIn.sessionHash, ctx.now());
}

/** Ends every session of the user, on every device, this one included. */
export async function signOutEverywhere(ctx: ConsoleContext, signedIn: SignedIn): Promise<void> {
  await revokeUserSessions(ctx.prisma, signedIn.user.id, ctx.now());
}
