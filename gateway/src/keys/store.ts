import { ApiError, afterPosition, type KeysetPosition, keysetOrder, newId } from '@voice/kit';
import {
  type ApiKeyRecord,
  type ConsoleKey,
  canonicalMcpPath,
  isTestOrg,
  liveOrgOf,
  monthlyQuotaFor,
  type Plan,
  planLimits,
  type Scope,
} from '@voice/proto';
import type { ApiKey, Prisma, PrismaClient } from '../generated/prisma/client.js';
import { displayPrefix, displaySuffix, generateKey, hashKey } from './format.js';

/**
 * What authentication needs to know about a bearer credential, cached in memory by hash: an API key, or
 * an OAuth access token, which answers for its grant (id, lineage, scope, quota, status) and carries its
 * own expiry.
 */
export interface KeyGrant {
  kind: 'key' | 'grant';
  id: string;
  orgId: string;
  lineageId: string;
  scope: Scope;
  monthlyQuota: number;
  status: 'active' | 'revoked';
  expiresAt: Date | null;
  plan: Plan;
  /** The person the key or grant belongs to (its creator, or who granted the app); null for the admin CLI's keys. */
  ownerUserId: string | null;
  /**
   * An access token's resource: the path of the MCP URL it was issued for, in its one spelling
   * (`canonicalMcpPath`), the only path it is accepted on. Null for an API key, and for a token issued
   * before resources were kept (refused as ended, so its client refreshes it).
   */
  resource: string | null;
}

/** The path of a resource URL in its one spelling, or null when it is not an MCP URL. */
export function resourcePathOf(resource: string | null): string | null {
  if (resource === null || !URL.canParse(resource)) return null;
  return canonicalMcpPath(new URL(resource).pathname) ?? null;
}

export const toScope = (scope: ApiKey['scope']): Scope => (scope === 'read_write' ? 'read-write' : 'read');
export const fromScope = (scope: Scope): ApiKey['scope'] => (scope === 'read-write' ? 'read_write' : 'read');

export function toApiKeyRecord(row: ApiKey): ApiKeyRecord {
  return {
    id: row.id,
    object: 'api_key',
    org_id: row.orgId,
    display_prefix: row.displayPrefix,
    scope: toScope(row.scope),
    monthly_quota: row.monthlyQuota,
    status: row.status,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** A key as the console lists it, with its lineage's count this month. */
export function toConsoleKey(row: ApiKey, monthlyUsed = 0): ConsoleKey {
  return {
    ...toApiKeyRecord(row),
    name: row.name,
    display_suffix: row.displaySuffix,
    created_by: row.createdBy,
    rotated_to_id: row.rotatedToId,
    monthly_used: monthlyUsed,
  };
}

function toKeyGrant(row: ApiKey & { organization: { plan: Plan } }, expiresAt: Date | null, resource: string | null = null): KeyGrant {
  return {
    kind: row.kind,
    id: row.id,
    orgId: row.orgId,
    lineageId: row.lineageId,
    scope: toScope(row.scope),
    monthlyQuota: row.monthlyQuota,
    status: row.status,
    expiresAt,
    plan: row.organization.plan,
    ownerUserId: row.createdBy,
    resource: resourcePathOf(resource),
  };
}

const withPlan = { organization: { select: { plan: true } } } as const;

/** An API key by its hash (a grant has none: its access tokens are looked up by `findTokenGrantByHash`). */
export async function findGrantByHash(prisma: PrismaClient, hash: string): Promise<KeyGrant | null> {
  const row = await prisma.apiKey.findUnique({ where: { hash }, include: withPlan });
  return row ? toKeyGrant(row, row.expiresAt) : null;
}

/** An OAuth access token by its hash: its grant as it stands now, ending when the token expires. */
export async function findTokenGrantByHash(prisma: PrismaClient, hash: string): Promise<KeyGrant | null> {
  const token = await prisma.oAuthAccessToken.findUnique({ where: { hash }, include: { grant: { include: withPlan } } });
  return token ? toKeyGrant(token.grant, token.expiresAt, token.resource) : null;
}

/**
 * Bearer credentials that count against the plan's limit: active API keys not on their way out after a
 * rotation, and active grants.
 */
function countedKeys(prisma: Prisma.TransactionClient, orgId: string) {
  return prisma.apiKey.count({ where: { orgId, status: 'active', rotatedToId: null } });
}

/**
 * A test twin's row (mode.ts in proto), made from its live organization's the first time it is needed: the
 * twin's credentials belong to it, and it has the live organization's name and plan (`setPlan` keeps the two
 * plans equal). Nothing for a live organization; nothing when the live one does not exist.
 */
export async function ensureTestTwin(tx: Prisma.TransactionClient, orgId: string): Promise<void> {
  if (!isTestOrg(orgId)) return;
  await tx.$executeRaw`
    INSERT INTO organizations (id, name, plan, created_at, updated_at)
    SELECT ${orgId}, name, plan, now(), now() FROM organizations WHERE id = ${liveOrgOf(orgId)}
    ON CONFLICT (id) DO NOTHING`;
}

/**
 * Locks the organization's row, so two concurrent creations cannot both pass the limit, and checks that
 * its plan allows one more bearer credential (key or grant) of this scope. Returns the plan.
 */
export async function admitCredential(tx: Prisma.TransactionClient, orgId: string, scope: Scope): Promise<Plan> {
  await ensureTestTwin(tx, orgId);
  const locked = await tx.$queryRaw<Array<{ plan: Plan }>>`SELECT plan FROM organizations WHERE id = ${orgId} FOR UPDATE`;
  const plan = locked[0]?.plan;
  if (!plan) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
  const limits = planLimits[plan];
  if (scope === 'read-write' && !limits.readWriteKeys) {
    throw new ApiError('plan_required', `The ${plan} plan allows read-only keys: choose the read scope, or change the plan.`, {
      param: 'scope',
    });
  }
  if (limits.maxKeys !== null && (await countedKeys(tx, orgId)) >= limits.maxKeys) {
    throw new ApiError(
      'key_limit_reached',
      `The ${plan} plan allows ${limits.maxKeys} key(s), connected apps included; revoke one first or change the plan.`,
    );
  }
  return plan;
}

export interface CreatedKey {
  key: string;
  record: ApiKeyRecord;
  row: ApiKey;
  hash: string;
}

export interface NewKeyInput {
  scope: Scope;
  monthlyQuota: number;
  name?: string;
  /** The console user creating it; absent for the operator's CLI. */
  createdBy?: string;
  expiresAt?: Date;
}

export async function createKey(prisma: PrismaClient, orgId: string, input: NewKeyInput): Promise<CreatedKey> {
  return prisma.$transaction(async (tx) => {
    await admitCredential(tx, orgId, input.scope);
    const key = generateKey(orgId);
    const id = newId('key');
    const hash = hashKey(key);
    const row = await tx.apiKey.create({
      data: {
        id,
        orgId,
        hash,
        displayPrefix: displayPrefix(key),
        displaySuffix: displaySuffix(key),
        name: input.name ?? '',
        createdBy: input.createdBy ?? null,
        scope: fromScope(input.scope),
        monthlyQuota: monthlyQuotaFor(orgId, input.monthlyQuota),
        lineageId: id,
        expiresAt: input.expiresAt ?? null,
      },
    });
    return { key, record: toApiKeyRecord(row), row, hash };
  });
}

/**
 * Who changes a key: the console passes the person's organization, so another organization's key id is
 * `not_found`, and the person, who becomes the successor's creator. The operator's CLI passes neither.
 */
export interface KeyActor {
  orgId?: string;
  userId?: string;
}

/**
 * Issues a successor key with the same organization, name, scope, quota, monthly counter and expiry; the
 * old key keeps working for the grace period (never past its own expiry), then answers `revoked`.
 */
export async function rotateKey(prisma: PrismaClient, keyId: string, graceSeconds: number, now = new Date(), actor: KeyActor = {}) {
  return prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({ where: { id: keyId, kind: 'key', ...(actor.orgId ? { orgId: actor.orgId } : {}) } });
    if (!old?.hash || old.status === 'revoked' || (old.expiresAt && old.expiresAt <= now)) {
      throw new ApiError('not_found', `No active key ${keyId}.`, { param: 'key_id' });
    }
    if (old.rotatedToId) throw new ApiError('conflict', `Key ${keyId} was already rotated to ${old.rotatedToId}.`);
    const key = generateKey(old.orgId);
    const id = newId('key');
    const hash = hashKey(key);
    const row = await tx.apiKey.create({
      data: {
        id,
        orgId: old.orgId,
        hash,
        displayPrefix: displayPrefix(key),
        displaySuffix: displaySuffix(key),
        name: old.name,
        createdBy: actor.userId ?? old.createdBy,
        scope: old.scope,
        monthlyQuota: old.monthlyQuota,
        lineageId: old.lineageId,
        expiresAt: old.expiresAt,
      },
    });
    const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
    const retired = await tx.apiKey.update({
      where: { id: keyId },
      data: { rotatedToId: id, expiresAt: old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd },
    });
    return { key, record: toApiKeyRecord(row), row, hash, retired: toApiKeyRecord(retired), retiredRow: retired, retiredHash: old.hash };
  });
}

/** Revokes an API key, or (kind `grant`) a grant, which ends all its access tokens. */
export async function revokeKey(
  prisma: PrismaClient,
  keyId: string,
  now = new Date(),
  actor: KeyActor = {},
  kind: KeyGrant['kind'] = 'key',
) {
  const row = await prisma.apiKey.findFirst({ where: { id: keyId, kind, ...(actor.orgId ? { orgId: actor.orgId } : {}) } });
  if (!row) {
    throw kind === 'key'
      ? new ApiError('not_found', `No key ${keyId}.`, { param: 'key_id' })
      : new ApiError('not_found', `No grant ${keyId}.`, { param: 'grant_id' });
  }
  const revoked = await prisma.apiKey.update({ where: { id: keyId }, data: { status: 'revoked', revokedAt: row.revokedAt ?? now } });
  return { record: toApiKeyRecord(revoked), row: revoked, hash: row.hash };
}

export async function listKeys(prisma: PrismaClient, orgId: string) {
  return (await listKeyRows(prisma, orgId)).map(toApiKeyRecord);
}

/** The organization's keys, newest first; with `page`, only those after its position and at most `take`. */
export function listKeyRows(prisma: PrismaClient, orgId: string, page?: { after: KeysetPosition | undefined; take: number }) {
  return prisma.apiKey.findMany({
    where: { orgId, kind: 'key', ...afterPosition(page?.after) },
    orderBy: keysetOrder,
    ...(page ? { take: page.take } : {}),
  });
}

export { countedKeys };

export async function touchKey(prisma: PrismaClient, keyId: string, now: Date): Promise<void> {
  await prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: now } });
}

/** One key of the organization; another organization's key id, or a grant's, is not found, like an unknown one. */
export async function findOrgKey(prisma: PrismaClient, orgId: string, keyId: string): Promise<ApiKey> {
  const row = await prisma.apiKey.findFirst({ where: { orgId, id: keyId, kind: 'key' } });
  if (!row) throw new ApiError('not_found', `No key ${keyId}.`, { param: 'key_id' });
  return row;
}

export async function findGrantByKeyId(prisma: PrismaClient, orgId: string, keyId: string) {
  const row = await prisma.apiKey.findFirst({ where: { orgId, id: keyId } });
  if (!row) throw new ApiError('not_found', 'No such key.', { param: 'key_id' });
  return { lineageId: row.lineageId, monthlyQuota: row.monthlyQuota };
}

/**
 * A key's standing now, within its organization. A key retired by rotation stands for its successor, so
 * a routine rotation does not void work its predecessor asked for; a revoked key, or a chain that ends
 * in one, is `revoked`.
 */
export async function keyStanding(prisma: PrismaClient, orgId: string, keyId: string, now = new Date()) {
  let row = await prisma.apiKey.findFirst({ where: { orgId, id: keyId } });
  if (!row) throw new ApiError('not_found', 'No such key.', { param: 'key_id' });
  for (let hops = 0; row.rotatedToId && row.status === 'active' && hops < 100; hops++) {
    const successor: ApiKey | null = await prisma.apiKey.findFirst({ where: { orgId, id: row.rotatedToId } });
    if (!successor) break;
    row = successor;
  }
  const expired = row.expiresAt !== null && row.expiresAt <= now;
  return {
    key_id: keyId,
    status: row.status === 'revoked' || expired ? ('revoked' as const) : ('active' as const),
    scope: toScope(row.scope),
  };
}
