import { ApiError, type Bus } from '@voice/kit';
import { type Identity, oauthRpc, planLimits, type Scope } from '@voice/proto';
import { personOnGateway } from './api-keys.js';
import { canManage } from './roles.js';
import type { SignedIn } from './sessions.js';

/** The organizations a person may grant to, each with the most a grant there may do. */
export interface GrantableOrganization {
  orgId: string;
  role: SignedIn['role'];
  plan: string;
  /** Members grant `read` only, and so does everyone on a plan without read-write keys (Lite). */
  maxScope: Scope;
}

/** The signed-in person as a member of another of their organizations (the consent page's choice). */
export function inOrganization(signedIn: SignedIn, orgId: string): SignedIn {
  const membership = signedIn.memberships.find((candidate) => candidate.orgId === orgId);
  if (!membership) throw new ApiError('not_found', 'You are not a member of that organization.');
  return { ...signedIn, orgId, role: membership.role };
}

export async function grantableOrganizations(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string): Promise<GrantableOrganization[]> {
  return Promise.all(
    signedIn.memberships.map(async (membership) => {
      const { organization } = await personOnGateway(ctx, inOrganization(signedIn, membership.orgId), requestId);
      const maxScope: Scope = canManage(membership.role) && planLimits[organization.plan].readWriteKeys ? 'read-write' : 'read';
      return { orgId: membership.orgId, role: membership.role, plan: organization.plan, maxScope };
    }),
  );
}

/** Creates the grant at the gateway, as the person, in the chosen organization. */
export async function createGrant(
  ctx: { bus: Bus },
  signedIn: SignedIn,
  requestId: string,
  input: { client_id: string; client_name: string; scope: Scope; monthly_quota: number },
) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  return ctx.bus.call(oauthRpc.createGrant, identity, input);
}

/**
 * The identity the token endpoint calls the gateway with: the person who granted, in the grant's
 * organization. There is no session at the token endpoint; the refresh token (or code) stands for them.
 */
function grantorIdentity(grant: { orgId: string; userId: string }, requestId: string, scope: Scope): Identity {
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

export function issueAccessToken(ctx: { bus: Bus }, grant: { grantId: string; orgId: string; userId: string }, requestId: string) {
  return ctx.bus.call(oauthRpc.issueAccessToken, grantorIdentity(grant, requestId, 'read'), { grant_id: grant.grantId });
}

/** Revokes a grant whose code or refresh token was used twice: someone else holds a copy. */
export function revokeGrantOf(ctx: { bus: Bus }, grant: { grantId: string; orgId: string; userId: string }, requestId: string) {
  return ctx.bus.call(oauthRpc.revokeGrant, grantorIdentity(grant, requestId, 'read-write'), { grant_id: grant.grantId });
}

/** The organization's grants, for the Connected apps page. */
export async function grantsFor(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    list: async () => (await ctx.bus.call(oauthRpc.listGrants, identity, {})).data,
    revoke: (grantId: string) => ctx.bus.call(oauthRpc.revokeGrant, identity, { grant_id: grantId }),
  };
}
