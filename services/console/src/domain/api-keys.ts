import { type ConsoleKey, gatewayRpc } from '@voice/proto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { type GatewayCaller, personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** Keys a page of the API keys page lists; the whole list grows with the organization, a page does not. */
export const keysPageSize = 50;

/** The gateway's key operations for one person and request; the organization is fetched first, for its plan. */
export async function keysFor(ctx: GatewayCaller, signedIn: SignedIn, requestId: string) {
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
