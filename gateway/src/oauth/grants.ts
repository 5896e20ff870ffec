import { ApiError, keysetOrder, newId } from '@voice/kit';
import {
  type AccessToken,
  type createGrantInputSchema,
  type endGrantInputSchema,
  type GrantRevocationReason,
  type Identity,
  type issueAccessTokenInputSchema,
  monthlyQuotaFor,
  type OAuthGrant,
  type revokeGrantsOfPersonInputSchema,
  scopeAllows,
} from '@voice/proto';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps.js';
import type { ApiKey } from '../generated/prisma/client.js';
import { auditAction, keyChanges, personOf } from '../keys/console.js';
import { generateAccessToken, hashKey } from '../keys/format.js';
import { revokeEverywhere } from '../keys/lifecycle.js';
import { admitCredential, fromScope, resourcePathOf, toScope } from '../keys/store.js';
import { quotaKeys } from '../quota/quota.js';

/**
 * The gateway's half of OAuth (oauthRpc, proto/src/oauth.ts), for the console, which is the authorization
 * server. A grant is an `api_keys` row of kind `grant`: it counts against the plan's number of keys, has
 * a monthly quota counted on its own lineage, a last use, and is revoked like a key (the end marker in
 * Redis and the broadcast), which ends its access tokens on every replica. It has no key of its own: it
 * is used only through its short-lived access tokens (oauth_access_tokens, hashes only), each bound to
 * the grant's resource (the MCP URL it was issued for, RFC 8707). The console's API keys list never shows
 * grants. As with keys, only a person may create, list and revoke them, in their organization; a grant
 * acts for the person who granted it, so its tokens are issued to them alone, and only while their role
 * still allows its scope. The platform's own revocations (`endGrantFor`, `revokeGrantsOfPersonFor`) are
 * audited with actor `system` and their reason, never as a person.
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
    resource: row.resource,
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
  if (resourcePathOf(input.resource) === null) {
    throw new ApiError('invalid_request', 'The resource must be an MCP URL: /api/mcp, or one of its /x/{toolsets} and /readonly URLs.', {
      param: 'resource',
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
        resource: input.resource,
        createdBy: person.userId,
        scope: fromScope(input.scope),
        monthlyQuota: monthlyQuotaFor(person.orgId, input.monthly_quota),
        lineageId: id,
      },
    });
  });
  await auditAction(deps, person, grantAuditPaths.create, 201, startedAt);
  return toGrant(row, 0);
}

/**
 * Records what the platform did to a grant on its own: actor `system` (or `grant`, when its client revoked
 * it), the grant's id as `key_id`, the reason, at the address where a person's revocation is recorded.
 */
async function auditEnd(deps: GatewayDeps, grant: ApiKey, reason: GrantRevocationReason, requestId: string): Promise<void> {
  await deps.prisma.auditRecord.create({
    data: {
      id: newId('audit'),
      orgId: grant.orgId,
      actorType: reason === 'client_revoked' ? 'grant' : 'system',
      keyId: grant.id,
      method: 'POST',
      path: grantAuditPaths.revoke(grant.id),
      status: 200,
      latencyMs: 0,
      requestId,
      clientAddress: null,
      reason,
      createdAt: deps.now(),
    },
  });
}

/** Ends an active grant everywhere (the end marker and the broadcast, as for keys) and audits why; an ended one is left as it is. */
async function endGrant(deps: GatewayDeps, grant: ApiKey, reason: GrantRevocationReason, requestId: string): Promise<ApiKey> {
  if (grant.status === 'revoked') return grant;
  const revoked = await revokeEverywhere(keyChanges(deps), grant.id, { orgId: grant.orgId }, deps.now(), 'grant');
  await auditEnd(deps, grant, reason, requestId);
  return revoked.row;
}

/**
 * A new access token of an active grant, living OAUTH_ACCESS_TOKEN_SECONDS, for the grant's resource. All
 * tokens of a grant count on the grant's one monthly counter, so issuing a new one resets nothing. Asked
 * as the grantor as they stand now: another person is refused, and a grant above the grantor's scope now
 * (an admin made a member) is ended (`role_changed`) and refused as revoked. A resource named by the token
 * request must be the grant's: a refresh cannot move a grant to another resource.
 */
export async function issueAccessTokenFor(
  deps: GatewayDeps,
  identity: Identity,
  input: z.output<typeof issueAccessTokenInputSchema>,
): Promise<AccessToken> {
  const person = personOf(identity);
  let grant = await grantIn(deps, person.orgId, input.grant_id);
  if (grant.status === 'revoked') throw new ApiError('revoked', `Grant ${grant.id} was revoked.`, { param: 'grant_id' });
  if (grant.createdBy !== person.userId) throw new ApiError('forbidden', `Grant ${grant.id} acts for the person who granted it.`);
  if (!scopeAllows(identity.scope, toScope(grant.scope))) {
    await endGrant(deps, grant, 'role_changed', person.requestId);
    throw new ApiError('revoked', `Grant ${grant.id} was revoked: the person who granted it may no longer grant ${toScope(grant.scope)}.`, {
      param: 'grant_id',
    });
  }
  if (input.resource !== undefined && grant.resource !== null && input.resource !== grant.resource) {
    throw new ApiError('invalid_request', `Grant ${grant.id} is for ${grant.resource}.`, { param: 'resource' });
  }
  if (grant.resource === null) {
    // A grant from before resources were kept takes the one its refresh token was issued for.
    if (input.resource === undefined || resourcePathOf(input.resource) === null) {
      throw new ApiError('invalid_request', 'Name the MCP URL this grant is for.', { param: 'resource' });
    }
    grant = await deps.prisma.apiKey.update({ where: { id: grant.id }, data: { resource: input.resource } });
  }
  const lifetimeSeconds = deps.env.OAUTH_ACCESS_TOKEN_SECONDS;
  const now = deps.now();
  const token = generateAccessToken();
  await deps.prisma.oAuthAccessToken.create({
    data: {
      hash: hashKey(token),
      grantId: grant.id,
      resource: grant.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000),
    },
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
 * The platform ends a grant on its own (a reused code or refresh token, its client's RFC 7009 revocation):
 * no person acts, so the identity need only be the organization's, and the audit record says why.
 */
export async function endGrantFor(deps: GatewayDeps, identity: Identity, input: z.output<typeof endGrantInputSchema>): Promise<OAuthGrant> {
  const grant = await grantIn(deps, identity.org_id, input.grant_id);
  const ended = await endGrant(deps, grant, input.reason, identity.request_id);
  const [used] = await monthlyUsed(deps, [ended]);
  return toGrant(ended, used ?? 0);
}

/**
 * Ends the active grants a person made in the organization, because they left it (`member_removed`: all of
 * them) or became a member (`role_changed`, `above: 'read'`: those that may write). Asked by the person
 * making the change; audited as `system` with the reason. Answers the grants it ended.
 */
export async function revokeGrantsOfPersonFor(
  deps: GatewayDeps,
  identity: Identity,
  input: z.output<typeof revokeGrantsOfPersonInputSchema>,
): Promise<{ data: OAuthGrant[] }> {
  const person = personOf(identity);
  const rows = await deps.prisma.apiKey.findMany({
    where: {
      orgId: person.orgId,
      kind: 'grant',
      status: 'active',
      createdBy: input.granted_by,
      ...(input.above === 'read' ? { scope: 'read_write' as const } : {}),
    },
    orderBy: keysetOrder,
  });
  const ended: ApiKey[] = [];
  for (const row of rows) ended.push(await endGrant(deps, row, input.reason, person.requestId));
  const used = await monthlyUsed(deps, ended);
  return { data: ended.map((row, index) => toGrant(row, used[index] ?? 0)) };
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
