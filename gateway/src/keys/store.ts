import { ApiError, afterPosition, type KeysetPosition, keysetOrder, newId } from '@voice/kit';
import { type ApiKeyRecord, type ConsoleKey, type Plan, planLimits, type Scope } from '@voice/proto';
import type { ApiKey, Prisma, PrismaClient } from '../generated/prisma/client.js';
import { displayPrefix, displaySuffix, generateKey, hashKey } from './format.js';

/** What authentication needs to know about a key, cached in memory by hash. */
export interface KeyGrant {
  id: string;
  orgId: string;
  lineageId: string;
  scope: Scope;
  monthlyQuota: number;
  status: 'active' | 'revoked';
  expiresAt: Date | null;
  plan: Plan;
}

const toScope = (scope: ApiKey['scope']): Scope => (scope === 'read_write' ? 'read-write' : 'read');
const fromScope = (scope: Scope): ApiKey['scope'] => (scope === 'read-write' ? 'read_write' : 'read');

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

export async function findGrantByHash(prisma: PrismaClient, hash: string): Promise<KeyGrant | null> {
  const row = await prisma.apiKey.findUnique({ where: { hash }, include: { organization: { select: { plan: true } } } });
  if (!row) return null;
  return {
    id: row.id,
    orgId: row.orgId,
    lineageId: row.lineageId,
    scope: toScope(row.scope),
    monthlyQuota: row.monthlyQuota,
    status: row.status,
    expiresAt: row.expiresAt,
    plan: row.organization.plan,
  };
}

/** Keys that count against the plan's limit: active and not on their way out after a rotation. */
function countedKeys(prisma: Prisma.TransactionClient, orgId: string) {
  return prisma.apiKey.count({ where: { orgId, status: 'active', rotatedToId: null } });
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
    // Lock the organization row so two concurrent creations cannot both pass the key limit.
    const locked = await tx.$queryRaw<Array<{ plan: Plan }>>`SELECT plan FROM organizations WHERE id = ${orgId} FOR UPDATE`;
    const plan = locked[0]?.plan;
    if (!plan) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
    const limits = planLimits[plan];
    if (input.scope === 'read-write' && !limits.readWriteKeys) {
      throw new ApiError('plan_required', `The ${plan} plan allows read-only keys: choose the read scope, or change the plan.`, {
        param: 'scope',
      });
    }
    if (limits.maxKeys !== null && (await countedKeys(tx, orgId)) >= limits.maxKeys) {
      throw new ApiError('key_limit_reached', `The ${plan} plan allows ${limits.maxKeys} key(s); revoke one first or change the plan.`);
    }
    const key = generateKey();
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
        monthlyQuota: input.monthlyQuota,
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
    const old = await tx.apiKey.findFirst({ where: { id: keyId, ...(actor.orgId ? { orgId: actor.orgId } : {}) } });
    if (!old || old.status === 'revoked' || (old.expiresAt && old.expiresAt <= now)) {
      throw new ApiError('not_found', `No active key ${keyId}.`, { param: 'key_id' });
    }
    if (old.rotatedToId) throw new ApiError('conflict', `Key ${keyId} was already rotated to ${old.rotatedToId}.`);
    const key = generateKey();
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

export async function revokeKey(prisma: PrismaClient, keyId: string, now = new Date(), actor: KeyActor = {}) {
  const row = await prisma.apiKey.findFirst({ where: { id: keyId, ...(actor.orgId ? { orgId: actor.orgId } : {}) } });
  if (!row) throw new ApiError('not_found', `No key ${keyId}.`, { param: 'key_id' });
  const revoked = await prisma.apiKey.update({ where: { id: keyId }, data: { status: 'revoked', revokedAt: row.revokedAt ?? now } });
  return { record: toApiKeyRecord(revoked), row: revoked, hash: row.hash };
}

export async function listKeys(prisma: PrismaClient, orgId: string) {
  return (await listKeyRows(prisma, orgId)).map(toApiKeyRecord);
}

/** The organization's keys, newest first; with `page`, only those after its position and at most `take`. */
export function listKeyRows(prisma: PrismaClient, orgId: string, page?: { after: KeysetPosition | undefined; take: number }) {
  return prisma.apiKey.findMany({
    where: { orgId, ...afterPosition(page?.after) },
    orderBy: keysetOrder,
    ...(page ? { take: page.take } : {}),
  });
}

export { countedKeys };

export async function touchKey(prisma: PrismaClient, keyId: string, now: Date): Promise<void> {
  await prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: now } });
}

/** One key of the organization; another organization's key id is not found, like an unknown one. */
export async function findOrgKey(prisma: PrismaClient, orgId: string, keyId: string): Promise<ApiKey> {
  const row = await prisma.apiKey.findFirst({ where: { orgId, id: keyId } });
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
