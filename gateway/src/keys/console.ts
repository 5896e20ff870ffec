import { ApiError, decodeCursor, newId, toPage } from '@voice/kit';
import { type ConsoleKey, type createKeyInputSchema, type Identity, type Page, planLimits, type UsageHistory } from '@voice/proto';
import type { z } from 'zod';
import { dailyCounts } from '../audit/store.js';
import type { GatewayDeps } from '../deps.js';
import type { ApiKey } from '../generated/prisma/client.js';
import { quotaKeys, readUsage, recordKeyEnd } from '../quota/quota.js';
import { createAnnouncedKey, type KeyChanges, revokeEverywhere, rotateEverywhere } from './lifecycle.js';
import { getOrganization, renameOrganization, toOrganizationRecord } from './organizations.js';
import { countedKeys, findOrgKey, listKeyRows, toConsoleKey } from './store.js';

/**
 * The console's key operations (gatewayRpc.getOrganization … revokeKey). The organization is always the
 * identity's, never the input's, so another organization's key id is `not_found`; and only a person
 * acting through the console (`user_id`) may use them, never an API key. The plan is read from Postgres,
 * not from the identity.
 */
export interface Person {
  orgId: string;
  userId: string;
  requestId: string;
}

export function personOf(identity: Identity): Person {
  if (!identity.user_id) throw new ApiError('forbidden', 'Only a person signed in to the console can manage keys and grants.');
  return { orgId: identity.org_id, userId: identity.user_id, requestId: identity.request_id };
}

export function keyChanges(deps: GatewayDeps): KeyChanges {
  return {
    prisma: deps.prisma,
    bus: deps.bus,
    recordKeyEnd: (end) => recordKeyEnd(deps.redis, { prefix: deps.env.REDIS_PREFIX, ...end }),
  };
}

/**
 * One audit record per console change, with the person as actor (`key_id` holds their user id) and the
 * console address of the action as path; written directly, as these are few beside API calls.
 */
export async function auditAction(deps: GatewayDeps, person: Person, path: string, status: number, startedAt: number): Promise<void> {
  await deps.prisma.auditRecord.create({
    data: {
      id: newId('audit'),
      orgId: person.orgId,
      actorType: 'user',
      keyId: person.userId,
      method: 'POST',
      path,
      status,
      latencyMs: Math.max(0, Date.now() - startedAt),
      requestId: person.requestId,
      clientAddress: null,
      createdAt: deps.now(),
    },
  });
}

/** A console change made through another service (a call queued or canceled), audited like the gateway's own. */
export async function recordConsoleActionFor(
  deps: GatewayDeps,
  identity: Identity,
  input: { path: string; status: number; latency_ms: number },
): Promise<{ recorded: true }> {
  await auditAction(deps, personOf(identity), input.path, input.status, Date.now() - input.latency_ms);
  return { recorded: true };
}

/** Renames the person's organization (always the identity's); the console lets owners only, and audits it. */
export async function renameOrganizationFor(deps: GatewayDeps, identity: Identity, input: { name: string }) {
  const { orgId } = personOf(identity);
  return renameOrganization(deps.prisma, orgId, input.name);
}

export async function organizationFor(deps: GatewayDeps, identity: Identity) {
  const { orgId } = personOf(identity);
  const organization = await getOrganization(deps.prisma, orgId);
  const limits = planLimits[organization.plan];
  return {
    ...toOrganizationRecord(organization),
    max_keys: limits.maxKeys,
    read_write_keys: limits.readWriteKeys,
    counted_keys: await countedKeys(deps.prisma, orgId),
  };
}

/**
 * The organization's keys, each with its lineage's count this month (one MGET for all of them): all of
 * them without `limit`, else one page. The cursor is bound to the organization, so another's is refused.
 */
export async function keysFor(deps: GatewayDeps, identity: Identity, input: KeysPageInput = {}): Promise<Page<ConsoleKey>> {
  const { orgId } = personOf(identity);
  const filters = { org_id: orgId };
  const page = input.limit === undefined ? undefined : { after: decodeCursor(input.cursor, filters), take: input.limit + 1 };
  const rows = await listKeyRows(deps.prisma, orgId, page);
  const now = deps.now();
  const counters =
    rows.length === 0 ? [] : await deps.redis.mget(rows.map((row) => quotaKeys(deps.env.REDIS_PREFIX, orgId, row.lineageId, now).monthly));
  const used = new Map(rows.map((row, index) => [row.id, Number(counters[index] ?? 0)]));
  return toPage(rows, input.limit ?? rows.length, filters, (row) => toConsoleKey(row, used.get(row.id) ?? 0));
}

interface KeysPageInput {
  limit?: number | undefined;
  cursor?: string | undefined;
}

const historyDays = 30;

/** The usage page's figures: 30 days of calls per key, today against the plan, each key's month. */
export async function usageHistoryFor(deps: GatewayDeps, identity: Identity): Promise<UsageHistory> {
  const { orgId } = personOf(identity);
  const now = deps.now();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (historyDays - 1)));
  const [organization, days, keys, today] = await Promise.all([
    getOrganization(deps.prisma, orgId),
    dailyCounts(deps.prisma, orgId, from),
    keysFor(deps, identity),
    // The daily counter is the organization's, whichever key: the lineage is not part of its name.
    readUsage(deps.redis, { prefix: deps.env.REDIS_PREFIX, orgId, lineageId: '', now }),
  ]);
  return {
    days,
    from: from.toISOString().slice(0, 10),
    today: { used: today.dailyUsed, limit: planLimits[organization.plan].dailyRequests },
    keys: keys.data.map((key) => ({
      id: key.id,
      name: key.name,
      status: key.status,
      monthly_used: key.monthly_used,
      monthly_quota: key.monthly_quota,
    })),
  };
}

async function withUsage(deps: GatewayDeps, row: ApiKey): Promise<ConsoleKey> {
  const used = await deps.redis.get(quotaKeys(deps.env.REDIS_PREFIX, row.orgId, row.lineageId, deps.now()).monthly);
  return toConsoleKey(row, Number(used ?? 0));
}

/** One key of the person's organization with this month's use; another organization's key is `not_found`. */
export async function keyFor(deps: GatewayDeps, identity: Identity, input: { key_id: string }): Promise<ConsoleKey> {
  const { orgId } = personOf(identity);
  return withUsage(deps, await findOrgKey(deps.prisma, orgId, input.key_id));
}

export async function createKeyFor(deps: GatewayDeps, identity: Identity, input: z.output<typeof createKeyInputSchema>) {
  const person = personOf(identity);
  const startedAt = Date.now();
  const expiresAt = input.expires_at ? new Date(input.expires_at) : undefined;
  if (expiresAt && expiresAt <= deps.now())
    throw new ApiError('invalid_request', 'The expiry must be in the future.', { param: 'expires_at' });
  const created = await createAnnouncedKey(keyChanges(deps), person.orgId, {
    name: input.name,
    scope: input.scope,
    monthlyQuota: input.monthly_quota,
    createdBy: person.userId,
    ...(expiresAt ? { expiresAt } : {}),
  });
  await auditAction(deps, person, '/dashboard/settings/api/keys', 201, startedAt);
  return { key: created.key, record: toConsoleKey(created.row) };
}

export async function rotateKeyFor(deps: GatewayDeps, identity: Identity, input: { key_id: string; grace_seconds: number }) {
  const person = personOf(identity);
  const startedAt = Date.now();
  const rotated = await rotateEverywhere(keyChanges(deps), input.key_id, input.grace_seconds, person, deps.now());
  await auditAction(deps, person, `/dashboard/settings/api/keys/${input.key_id}/rotate`, 201, startedAt);
  return { key: rotated.key, record: await withUsage(deps, rotated.row), replaces: await withUsage(deps, rotated.retiredRow) };
}

export async function revokeKeyFor(deps: GatewayDeps, identity: Identity, input: { key_id: string }) {
  const person = personOf(identity);
  const startedAt = Date.now();
  const revoked = await revokeEverywhere(keyChanges(deps), input.key_id, person, deps.now());
  await auditAction(deps, person, `/dashboard/settings/api/keys/${input.key_id}/revoke`, 200, startedAt);
  return withUsage(deps, revoked.row);
}
