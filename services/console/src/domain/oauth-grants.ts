import { ApiError, type Bus } from '@voice/kit';
import { type GrantRevocationReason, type Identity, liveOrgOf, type Mode, oauthRpc, planLimits, type Scope } from '@voice/proto';
import type { Db } from '../store/memberships.js';
import { findMembership } from '../store/memberships.js';
import { personIdentity, personOnGateway } from './identity.js';
import { canManage } from './roles.js';
import type { SignedIn } from './sessions.js';

/** The organizations a person may grant to, each with the most a grant there may do. */
export interface GrantableOrganization {
  orgId: string;
  /** The organization's name as the gateway gave it. */
  name: string;
  role: SignedIn['role'];
  plan: string;
  /** Members grant `read` only, and so does everyone on a plan without read-write keys (Lite). */
  maxScope: Scope;
}

/**
 * The signed-in person as a member of another of their organizations, in a mode (the consent page's choices:
 * live unless the person chose test data). What the gateway said of the session's own organization for this
 * request is dropped for any other organization or mode, so it is asked again for the one chosen.
 */
export function inOrganization(signedIn: SignedIn, orgId: string, mode: Mode = 'live'): SignedIn {
  const membership = signedIn.memberships.find((candidate) => candidate.orgId === orgId);
  if (!membership) throw new ApiError('not_found', 'You are not a member of that organization.');
  const same = orgId === signedIn.orgId && mode === signedIn.mode;
  const organizations = signedIn.organizations && !same ? { names: signedIn.organizations.names } : signedIn.organizations;
  return { ...signedIn, orgId, role: membership.role, mode, ...(organizations ? { organizations } : {}) };
}

/** The person's organizations as the consent page offers them (live: a twin has the same name and plan). */
export async function grantableOrganizations(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string): Promise<GrantableOrganization[]> {
  return Promise.all(
    signedIn.memberships.map(async (membership) => {
      const { organization } = await personOnGateway(ctx, inOrganization(signedIn, membership.orgId), requestId);
      const maxScope: Scope = canManage(membership.role) && planLimits[organization.plan].readWriteKeys ? 'read-write' : 'read';
      return { orgId: membership.orgId, name: organization.name, role: membership.role, plan: organization.plan, maxScope };
    }),
  );
}

/** Creates the grant at the gateway, as the person, in the chosen organization, for the resource the client asked for. */
export async function createGrant(
  ctx: { bus: Bus },
  signedIn: SignedIn,
  requestId: string,
  input: { client_id: string; client_name: string; scope: Scope; resource: string; monthly_quota: number },
) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  return ctx.bus.call(oauthRpc.createGrant, identity, input);
}

interface GrantOf {
  grantId: string;
  orgId: string;
  userId: string;
}

/**
 * The identity the token endpoint calls the gateway with: the person who granted, in the grant's
 * organization, with the scope their role there allows now. There is no session at the token endpoint;
 * the refresh token (or code) stands for them.
 */
function grantorIdentity(grant: GrantOf, requestId: string, scope: Scope): Identity {
  return {
    org_id: grant.orgId,
    key_id: grant.userId,
    user_id: grant.userId,
    scope,
    plan: 'lite',
    request_id: requestId,
    monthly_used: 0,
    monthly_quota: 0,
  };
}

/** The platform acting on a grant on its own (no person): only the organization is the identity's. */
function systemIdentity(orgId: string, requestId: string): Identity {
  return { org_id: orgId, key_id: 'system', scope: 'read', plan: 'lite', request_id: requestId, monthly_used: 0, monthly_quota: 0 };
}

/**
 * A grant acts for the person who granted it, as long as they stand where they stood: the grantor's
 * membership now, or undefined when they left the organization.
 */
export async function grantorStanding(prisma: Db, grant: GrantOf): Promise<Scope | undefined> {
  // A test grant's organization is a twin; the grantor's membership is the live organization's.
  const membership = await findMembership(prisma, liveOrgOf(grant.orgId), grant.userId);
  if (!membership) return undefined;
  return canManage(membership.role) ? 'read-write' : 'read';
}

/**
 * A new access token of the grant, asked as its grantor with the scope their role allows now (the gateway
 * ends a grant above it), for the resource the code or refresh token was issued for.
 */
export function issueAccessToken(ctx: { bus: Bus }, grant: GrantOf & { resource: string }, requestId: string, grantorScope: Scope) {
  return ctx.bus.call(oauthRpc.issueAccessToken, grantorIdentity(grant, requestId, grantorScope), {
    grant_id: grant.grantId,
    resource: grant.resource,
  });
}

/**
 * Ends a grant without a person asking: a code or refresh token used twice (someone else holds a copy),
 * its grantor gone, or its client's own revocation. Audited with the reason, never as the grantor.
 */
export function endGrant(ctx: { bus: Bus }, grant: GrantOf, requestId: string, reason: GrantRevocationReason) {
  return ctx.bus.call(oauthRpc.endGrant, systemIdentity(grant.orgId, requestId), { grant_id: grant.grantId, reason });
}

/**
 * Ends the grants a person made in the acting person's organization: every one when they leave it, those
 * that may write when they become a member. Asked by the owner or admin making the change. A membership is
 * the live organization's and counts for its test twin too, so the grants made in test data end as well,
 * whichever mode the actor's session is in.
 */
export async function revokeGrantsOfPerson(
  ctx: { bus: Bus },
  actor: SignedIn,
  requestId: string,
  input: { userId: string; reason: 'member_removed' | 'role_changed'; above: 'read' | null },
) {
  const modes: Mode[] = ['live', 'test'];
  const ended = await Promise.all(
    modes.map((mode) =>
      ctx.bus.call(oauthRpc.revokeGrantsOfPerson, grantsIdentity({ ...actor, mode }, requestId), {
        granted_by: input.userId,
        reason: input.reason,
        above: input.above,
      }),
    ),
  );
  return ended.flatMap((answer) => answer.data);
}

/**
 * The person's identity for the gateway's grant operations, which read no plan (they act on the grants of
 * the identity's organization only): no call to learn it first.
 */
function grantsIdentity(signedIn: SignedIn, requestId: string): Identity {
  return personIdentity(signedIn, requestId, signedIn.organizations?.current?.plan ?? 'lite');
}

/** The organization's grants, for the Connected apps page and the members pages. */
export async function grantsFor(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string) {
  const identity = grantsIdentity(signedIn, requestId);
  return {
    list: async () => (await ctx.bus.call(oauthRpc.listGrants, identity, {})).data,
    revoke: (grantId: string) => ctx.bus.call(oauthRpc.revokeGrant, identity, { grant_id: grantId }),
  };
}
