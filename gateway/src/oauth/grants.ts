import { ApiError, keysetOrder, newId } from '@voice/kit';
import { type AccessToken, type createGrantInputSchema, type Identity, type OAuthGrant, scopeAllows } from '@voice/proto';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps.js';
import type { ApiKey } from '../generated/prisma/client.js';
import { auditAction, keyChanges, personOf } from '../keys/console.js';
import { generateAccessToken, hashKey } from '../keys/format.js';
import { revokeEverywhere } from '../keys/lifecycle.js';
import { admitCredential, fromScope, toScope } from '../keys/store.js';
import { quotaKeys } from '../quota/quota.js';

/**
 * The gateway's half of OAuth (oauthRpc, proto/src/oauth.ts), for the console, which is the authorization
 * server. A grant is an `api_keys` row of kind `grant`: it counts against the plan's number of keys, has
 * a monthly quota counted on its own lineage, a last use, and is revoked like a key (the end marker in
 * Redis and the broadcast), which ends its access tokens on every replica. It has no key of its own: it
 * is used only through its short-lived access tokens (oauth_access_tokens, hashes only). The console's
 * API keys list never shows grants. As with keys, only a person may call these, in their organization.
 */
function toGrant(row: ApiKey, monthlyUsed: number): OAuthGrant {
  return {
    id: row.id,
    object: 'oauth_grant',
    org_id: row.orgId,
    client_id: row.clientId ?? '',
    client_name: row.name,
    granted_by: row.createdBy ?? '',
    scope: toScope(row.scope),
    monthly_quota: row.monthlyQuota,
    monthly_used: monthlyUsed,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** The grants' counts this month, from the quota counters, in one MGET. */
async function monthlyUsed(deps: GatewayDeps, rows: ApiKey[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const now = deps.now();
  const counters = await deps.redis.mget(rows.map((row) => quotaKeys(deps.env.REDIS_PREFIX, row.orgId, row.lineageId, now).monthly));
  return counters.map((counter) => Number(counter ?? 0));
}

async function grantIn(deps: GatewayDeps, orgId: string, grantId: string): Promise<ApiKey> {
  const row = await deps.prisma.apiKey.findFirst({ where: { id: grantId, orgId, kind: 'grant' } });
  if (!row) throw new ApiError('not_found', `No grant ${grantId}.`, { param: 'grant_id' });
  return row;
}

/** Where console actions on grants are recorded in the audit log (the console's addresses for them). */
export const grantAuditPaths = {
  create: '/oauth/authorize',
  revoke: (grantId: string) => `/dashboard/settings/connected-apps/${grantId}/revoke`,
};

export async function createGrantFor(
  deps: GatewayDeps,
  identity: Identity,
  input: z.output<typeof createGrantInputSchema>,
): Promise<OAuthGrant> {
  const person = personOf(identity);
  const startedAt = Date.now();
  // Never more than the person may do: a member (read) grants read only.
  if (!scopeAllows(identity.scope, input.scope)) {
    throw new ApiError('forbidden_scope', `You may grant ${identity.scope} access only; ask an owner or admin for ${input.scope}.`, {
      param: 'scope',
    });
  }
  const row = await deps.prisma.$transaction(async (tx) => {
    await admitCredential(tx, person.orgId, input.scope);
    const id = newId('grant');
    return tx.apiKey.create({
      data: {
        id,
        kind: 'grant',
        orgId: person.orgId,
        hash: null,
        displayPrefix: '',
        name: input.client_name,
        clientId: input.client_id,
        createdBy: person.userId,
        scope: fromScope(input.scope),
        monthlyQuota: input.monthly_quota,
        lineageId: id,
      },
    });
  });
  await auditAction(deps, person, grantAuditPaths.create, 201, startedAt);
  return toGrant(row, 0);
}

/**
 * A new access token of an active grant, living OAUTH_ACCESS_TOKEN_SECONDS. All tokens of a grant count
 * on the grant's one monthly counter, so issuing a new one resets nothing.
 */
export async function issueAccessTokenFor(deps: GatewayDeps, identity: Identity, input: { grant_id: string }): Promise<AccessToken> {
  const person = personOf(identity);
  const grant = await grantIn(deps, person.orgId, input.grant_id);
  if (grant.status === 'revoked') throw new ApiError('revoked', `Grant ${grant.id} was revoked.`, { param: 'grant_id' });
  const lifetimeSeconds = deps.env.OAUTH_ACCESS_TOKEN_SECONDS;
  const now = deps.now();
  const token = generateAccessToken();
  await deps.prisma.oAuthAccessToken.create({
    data: { hash: hashKey(token), grantId: grant.id, createdAt: now, expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000) },
  });
  return { access_token: token, token_type: 'Bearer', expires_in: lifetimeSeconds, scope: toScope(grant.scope) };
}

/** Every grant of the organization, newest first, with this month's count. */
export async function grantsFor(deps: GatewayDeps, identity: Identity): Promise<{ data: OAuthGrant[] }> {
  const { orgId } = personOf(identity);
  const rows = await deps.prisma.apiKey.findMany({ where: { orgId, kind: 'grant' }, orderBy: keysetOrder });
  const used = await monthlyUsed(deps, rows);
  return { data: rows.map((row, index) => toGrant(row, used[index] ?? 0)) };
}

/** Revokes a grant: its access tokens are refused by every replica from the next request on. */
export async function revokeGrantFor(deps: GatewayDeps, identity: Identity, input: { grant_id: string }): Promise<OAuthGrant> {
  const person = personOf(identity);
  const startedAt = Date.now();
  const revoked = await revokeEverywhere(keyChanges(deps), input.grant_id, person, deps.now(), 'grant');
  await auditAction(deps, person, grantAuditPaths.revoke(input.grant_id), 200, startedAt);
  const [used] = await monthlyUsed(deps, [revoked.row]);
  return toGrant(revoked.row, used ?? 0);
}

/**
 * Deletes access tokens a day past their expiry, run with the hourly audit retention. Until then an
 * expired token still answers `revoked` (not `unknown_key`), which tells its client to refresh it.
 */
export async function deleteEndedAccessTokens(deps: Pick<GatewayDeps, 'prisma'>, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - 24 * 60 * 60 * 1000);
  const { count } = await deps.prisma.oAuthAccessToken.deleteMany({ where: { expiresAt: { lt: cutoff } } });
  return count;
}
