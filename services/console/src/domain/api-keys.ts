import type { Bus } from '@voice/kit';
import { type ConsoleKey, gatewayRpc, type Identity, type Plan } from '@voice/proto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { canManage, type Role } from './roles.js';
import type { SignedIn } from './sessions.js';

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

/** Keys a page of the API keys page lists; the whole list grows with the organization, a page does not. */
export const keysPageSize = 50;

export interface KeysGateway {
  bus: Bus;
}

/** The person's organization as the gateway knows it, and the identity to call the gateway with for them. */
export async function personOnGateway(ctx: KeysGateway, signedIn: SignedIn, requestId: string) {
  // Asked already for this request when it shows a page (http/session.ts); `lite` grants the least until
  // the gateway says which plan the organization has.
  const organization =
    signedIn.organizations?.current ?? (await ctx.bus.call(gatewayRpc.getOrganization, personIdentity(signedIn, requestId, 'lite'), {}));
  return { organization, identity: personIdentity(signedIn, requestId, organization.plan) };
}

/** The gateway's key operations for one person and request; the organization is fetched first, for its plan. */
export async function keysFor(ctx: KeysGateway, signedIn: SignedIn, requestId: string) {
  const { organization, identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    organization,
    /** One key of the organization; another organization's key id is `not_found` (the gateway checks). */
    get: (keyId: string) => ctx.bus.call(gatewayRpc.getKey, identity, { key_id: keyId }),
    page: (cursor: string | undefined) =>
      ctx.bus.call(gatewayRpc.listKeys, identity, { limit: keysPageSize, ...(cursor ? { cursor } : {}) }),
    create: (input: { name: string; scope: 'read' | 'read-write'; monthly_quota: number; expires_at?: string }) =>
      ctx.bus.call(gatewayRpc.createKey, identity, input),
    rotate: (keyId: string, graceSeconds: 0 | 3600 | 86400 | 604800) =>
      ctx.bus.call(gatewayRpc.rotateKey, identity, { key_id: keyId, grace_seconds: graceSeconds }),
    revoke: (keyId: string) => ctx.bus.call(gatewayRpc.revokeKey, identity, { key_id: keyId }),
  };
}
export type OrganizationKeys = Awaited<ReturnType<typeof keysFor>>;

/** The names of the people who created keys, for the list (ids of people no longer here stay ids). */
export async function creatorNames(prisma: PrismaClient, keys: ConsoleKey[]): Promise<Map<string, string>> {
  const ids = [...new Set(keys.flatMap((key) => (key.created_by ? [key.created_by] : [])))];
  if (ids.length === 0) return new Map();
  const users = await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(users.map((user) => [user.id, user.name]));
}
