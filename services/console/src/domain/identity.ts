import type { Bus } from '@voice/kit';
import { gatewayRpc, type Identity, type Plan } from '@voice/proto';
import { canManage, type Role } from './roles.js';
import type { SignedIn } from './sessions.js';

// Who the console is when it calls the gateway (or another service) for the signed-in person: every page
// needs it, so it lives here rather than with any one page's domain.

/**
 * The console asks the gateway, which owns keys, to act for the signed-in person. The identity is built
 * from the session: the person's user id (also as `key_id`, so records of who acted stay filled), their
 * organization (the current one unless another of their memberships is named; the only one the gateway's
 * handlers use), and a scope from their role there. The plan is the organization's as the gateway reports
 * it; its handlers read the plan from their own database anyway.
 */
export function personIdentity(
  signedIn: SignedIn,
  requestId: string,
  plan: Plan,
  membership: { orgId: string; role: Role } = { orgId: signedIn.orgId, role: signedIn.role },
): Identity {
  return {
    org_id: membership.orgId,
    key_id: signedIn.user.id,
    user_id: signedIn.user.id,
    scope: canManage(membership.role) ? 'read-write' : 'read',
    plan,
    request_id: requestId,
    monthly_used: 0,
    monthly_quota: 0,
  };
}

/** What calling the gateway for a person needs. */
export interface GatewayCaller {
  bus: Bus;
}

/** The person's organization as the gateway knows it, and the identity to call the gateway with for them. */
export async function personOnGateway(ctx: GatewayCaller, signedIn: SignedIn, requestId: string) {
  // Asked already for this request when it shows a page (http/session.ts); `lite` grants the least until
  // the gateway says which plan the organization has.
  const organization =
    signedIn.organizations?.current ?? (await ctx.bus.call(gatewayRpc.getOrganization, personIdentity(signedIn, requestId, 'lite'), {}));
  return { organization, identity: personIdentity(signedIn, requestId, organization.plan) };
}
