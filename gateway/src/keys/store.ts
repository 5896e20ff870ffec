import { ApiError, newId } from '@voice/kit';
import { type ApiKeyRecord, type Plan, planLimits, type Scope } from '@voice/proto';
import type { ApiKey, Prisma, PrismaClient } from '../generated/prisma/client.js';
import { displayPrefix, generateKey, hashKey } from './format.js';

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
  hash: string;
}

export async function createKey(prisma: PrismaClient, orgId: string, input: { scope: Scope; monthlyQuota: number }): Promise<CreatedKey> {
  return prisma.$transaction(async (tx) => {
    // Lock the organization row so two concurrent creations cannot both pass the key limit.
    const locked = await tx.$queryRaw<Array<{ plan: Plan }>>`SELECT plan FROM organizations WHERE id = ${orgId} FOR UPDATE`;
    const plan = locked[0]?.plan;
    if (!plan) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
    const limits = planLimits[plan];
    if (input.scope === 'read-write' && !limits.readWriteKeys) {
      throw new ApiError('plan_required', `The ${plan} plan allows read-only keys; use --scope read or change the plan.`, {
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
        scope: fromScope(input.scope),
        monthlyQuota: input.monthlyQuota,
        lineageId: id,
      },
    });
    return { key, record: toApiKeyRecord(row), hash };
  });
}

/**
 * Issues a successor key with the same organization, scope, quota and monthly counter; the old key keeps
 * working for the grace period, then answers `revoked`.
 */
export async function rotateKey(prisma: PrismaClient, keyId: string, graceSeconds: number, now = new Date()) {
  return prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findUnique({ where: { id: keyId } });
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
        scope: old.scope,
        monthlyQuota: old.monthlyQuota,
        lineageId: old.lineageId,
      },
    });
    const retired = await tx.apiKey.update({
      where: { id: keyId },
      data: { rotatedToId: id, expiresAt: new Date(now.getTime() + graceSeconds * 1000) },
    });
    return { key, record: toApiKeyRecord(row), hash, retired: toApiKeyRecord(retired), retiredHash: old.hash };
  });
}

export async function revokeKey(prisma: PrismaClient, keyId: string, now = new Date()) {
  const row = await prisma.apiKey.findUnique({ where: { id: keyId } });
  if (!row) throw new ApiError('not_found', `No key ${keyId}.`, { param: 'key_id' });
  const revoked = await prisma.apiKey.update({ where: { id: keyId }, data: { status: 'revoked', revokedAt: row.revokedAt ?? now } });
  return { record: toApiKeyRecord(revoked), hash: row.hash };
}

export async function listKeys(prisma: PrismaClient, orgId: string) {
  const rows = await prisma.apiKey.findMany({ where: { orgId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(toApiKeyRecord);
}

export async function touchKey(prisma: PrismaClient, keyId: string, now: Date): Promise<void> {
  await prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: now } });
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
