import { type Bus, type Logger, newId } from '@voice/kit';
import { gatewayRpc } from '@voice/proto';
import { liveOrganizationIdentity, personIdentity } from './identity.js';
import type { OrganizationsSeen, SignedIn } from './sessions.js';

/**
 * The person's organizations as the gateway knows them, asked once per signed-in request (a POST too: its
 * handler reuses `current` for the plan, and an error page shows the names). The
 * gateway owns organizations, names included, so the console keeps no copy that could go stale: one
 * `getOrganization` call per membership, in parallel, each with the person's identity in that organization
 * (the console checked the membership). The current one is asked in the session's mode, since a test twin
 * counts its own keys (the gateway makes the twin on first use, with the live one's name and plan); the others
 * only name the switcher's entries, in their live organization. A call that fails leaves that organization
 * shown by its id; the pages that need the gateway fail on their own call.
 */
export async function seeOrganizations(
  ctx: { bus: Bus; logger: Logger },
  signedIn: SignedIn,
  requestId: string,
): Promise<OrganizationsSeen> {
  const answers = await Promise.allSettled(
    signedIn.memberships.map((membership) =>
      // `lite` grants the least until the gateway says which plan the organization has.
      ctx.bus.call(
        gatewayRpc.getOrganization,
        membership.orgId === signedIn.orgId
          ? personIdentity(signedIn, requestId, 'lite', membership)
          : liveOrganizationIdentity(signedIn, requestId, 'lite', membership),
        {},
      ),
    ),
  );
  const names = new Map<string, string>();
  let current: OrganizationsSeen['current'];
  answers.forEach((answer, index) => {
    const orgId = signedIn.memberships[index]?.orgId;
    if (answer.status === 'rejected') {
      ctx.logger.debug({ orgId, err: answer.reason }, 'the gateway did not name an organization');
      return;
    }
    // By the membership's (live) id: a twin's answer bears the twin's id, with the same name.
    if (orgId) names.set(orgId, answer.value.name);
    if (orgId === signedIn.orgId) current = answer.value;
  });
  return { names, ...(current ? { current } : {}) };
}

/** An organization's name as the gateway gave it for this request, or its id. */
export const organizationLabel = (signedIn: SignedIn, orgId: string = signedIn.orgId) => signedIn.organizations?.names.get(orgId) ?? orgId;

/**
 * The organization as the gateway knows it, asked for someone who is not signed in to it: the operator at
 * the CLI (`operator`), or the invitee of an invitation, who sees it as the person who invited them (or the
 * operator) would. Read scope; the gateway's answer is `not_found` for an organization it does not know.
 */
export function organizationSeenBy(bus: Bus, orgId: string, userId: string, requestId: string = newId('request')) {
  return bus.call(
    gatewayRpc.getOrganization,
    {
      org_id: orgId,
      key_id: userId,
      user_id: userId,
      scope: 'read',
      plan: 'lite',
      request_id: requestId,
      monthly_used: 0,
      monthly_quota: 0,
    },
    {},
  );
}

/** The name for an invitation's page, or undefined when the gateway does not answer (the page shows the id). */
export async function invitedOrganizationName(
  ctx: { bus: Bus; logger: Logger },
  invitation: { orgId: string; invitedBy: string | null },
  requestId: string,
): Promise<string | undefined> {
  try {
    return (await organizationSeenBy(ctx.bus, invitation.orgId, invitation.invitedBy ?? 'operator', requestId)).name;
  } catch (error) {
    ctx.logger.debug({ orgId: invitation.orgId, err: error }, 'the gateway did not name an organization');
    return undefined;
  }
}
