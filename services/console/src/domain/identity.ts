import type { Bus } from '@voice/kit';
import { gatewayRpc, type Identity, orgInMode, type Plan } from '@voice/proto';
import { canManage, type Role } from './roles.js';
import type { SignedIn } from './sessions.js';

// Who the console is when it calls the gateway (or another service) for the signed-in person: every page
// needs it, so it lives here rather than with any one page's domain.

type Membership = { orgId: string; role: Role };

/**
 * The console asks the gateway, which owns keys, to act for the signed-in person. The identity is built
 * from the session: the person's user id (also as `key_id`, so records of who acted stay filled), an
 * organization (the only one the gateway's handlers use), and a scope from their role in it. The plan is
 * the organization's as the gateway reports it; its handlers read the plan from their own database anyway.
 */
function identityIn(orgId: string, signedIn: SignedIn, requestId: string, plan: Plan, role: Role): Identity {
  return {
    org_id: orgId,
    key_id: signedIn.user.id,
    user_id: signedIn.user.id,
    scope: canManage(role) ? 'read-write' : 'read',
    plan,
    request_id: requestId,
    monthly_used: 0,
    monthly_quota: 0,
  };
}

/**
 * The organization the session's data pages are about: the current organization in the session's mode (its
 * test twin, `org_test_…`, while the "Test data" switch is on). Whether what they show is test data is
 * `livemodeOf` this id.
 */
export const dataOrgId = (signedIn: SignedIn, orgId: string = signedIn.orgId): string => orgInMode(orgId, signedIn.mode);

/**
 * The person's identity for data (calls, messages, keys, the audit log…): in their current organization
 * unless another of their memberships is named, in the session's mode. With the "Test data" switch on, that
 * is the organization's test twin (`org_test_…`), so every service's own per-organization isolation keeps
 * what the console shows and changes apart from live data, and a key created here is a `vk_test_` key.
 */
export function personIdentity(
  signedIn: SignedIn,
  requestId: string,
  plan: Plan,
  membership: Membership = { orgId: signedIn.orgId, role: signedIn.role },
): Identity {
  return identityIn(dataOrgId(signedIn, membership.orgId), signedIn, requestId, plan, membership.role);
}

/**
 * The person's identity in the live organization whatever the mode: for what is the organization's own and
 * has no test twin (its name, the members' changes, the person's account), the console's records being
 * keyed by the live organization.
 */
export function liveOrganizationIdentity(
  signedIn: SignedIn,
  requestId: string,
  plan: Plan,
  membership: Membership = { orgId: signedIn.orgId, role: signedIn.role },
): Identity {
  return identityIn(membership.orgId, signedIn, requestId, plan, membership.role);
}

/** What calling the gateway for a person needs. */
export interface GatewayCaller {
  bus: Bus;
}

/**
 * The person's organization in the session's mode as the gateway knows it (a test twin has its own key
 * counts), and the identity to call the gateway with for them.
 */
export async function personOnGateway(ctx: GatewayCaller, signedIn: SignedIn, requestId: string) {
  // Asked already for this request when it shows a page (http/session.ts); `lite` grants the least until
  // the gateway says which plan the organization has.
  const organization =
    signedIn.organizations?.current ?? (await ctx.bus.call(gatewayRpc.getOrganization, personIdentity(signedIn, requestId, 'lite'), {}));
  return { organization, identity: personIdentity(signedIn, requestId, organization.plan) };
}
