import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { identityHeader } from '@voice/kit';
import {
  createTestContext,
  eventually,
  type Receiver,
  startReceiver,
  type TestContext,
  tamperedCredential,
  testIdentity,
} from '@voice/kit/testing';
import { gatewayRpc, type Identity, type OAuthGrant, oauthRpc } from '@voice/proto';
import { deleteEndedAccessTokens } from '../src/oauth/grants.js';
import { quotaKeys } from '../src/quota/quota.js';
import {
  assertError,
  bearer,
  call,
  createGrantWithToken,
  createOrgWithKey,
  personIdentity,
  rejection,
  startGateway,
  type TestGateway,
} from './support/harness.js';

/** What the console sends to create a grant, as the consent page filled it in. */
const publicBaseUrl = 'https://voice.example.com';
const mcpMetadata = `${publicBaseUrl}/.well-known/oauth-protected-resource/api/mcp`;
const restMetadata = `${publicBaseUrl}/.well-known/oauth-protected-resource/api/v1`;

const grantInput = (scope: 'read' | 'read-write') => ({
  client_id: 'cli_2x8Fq0aZ9kLm4Rt7',
  client_name: 'Claude',
  scope,
  resource: `${publicBaseUrl}/api/mcp`,
  monthly_quota: 10,
});

/** The identity the gateway signed for a request that reached the (stand-in) mcp service. */
const identityOf = (request: Receiver['requests'][number]): Identity =>
  JSON.parse(Buffer.from(String(request.headers[identityHeader]), 'base64url').toString('utf8'));

/** OAuth grants (oauthRpc) and their access tokens at the gateway, with a clock the test moves. */
describe('OAuth grants and access tokens', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let url: string;
  let clock = new Date();
  // The mcp service's stand-in: what reaches it passed authentication, with the identity the gateway signed.
  let mcp: Receiver;

  before(async () => {
    ctx = await createTestContext();
    mcp = await startReceiver();
    gateway = await startGateway(
      ctx,
      { PUBLIC_BASE_URL: publicBaseUrl, AUDIT_FLUSH_MS: '50', MCP_URL: new URL(mcp.url).origin },
      { now: () => clock },
    );
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    gateway.app.server.closeAllConnections();
    await gateway.close();
    await mcp.close();
    await ctx.cleanup();
  });

  const get = (path: string, token?: string) => call(url, 'GET', path, token ? { key: token } : {});
  /** The last request the mcp service got for this path. */
  const reachedMcp = (path: string) => mcp.requests.filter((request) => request.url === path).at(-1);

  test('createGrant records the client, the person, scope and quota; the grant counts as a key but is not listed with keys', async () => {
    const { orgId, keyId } = await createOrgWithKey(gateway, { plan: 'starter' });
    const person = personIdentity(orgId);
    const grant = await gateway.deps.bus.call(oauthRpc.createGrant, person, {
      client_id: 'cli_2x8Fq0aZ9kLm4Rt7',
      client_name: 'Claude',
      scope: 'read-write',
      resource: `${publicBaseUrl}/api/mcp/x/leads`,
      monthly_quota: 500,
    });
    assert.match(grant.id, /^grt_[0-9A-Za-z]{8,40}$/);
    assert.equal(grant.object, 'oauth_grant');
    assert.equal(grant.org_id, orgId);
    assert.equal(grant.client_id, 'cli_2x8Fq0aZ9kLm4Rt7');
    assert.equal(grant.client_name, 'Claude');
    assert.equal(grant.granted_by, person.user_id);
    assert.equal(grant.scope, 'read-write');
    assert.equal(grant.resource, `${publicBaseUrl}/api/mcp/x/leads`);
    assert.equal(grant.monthly_quota, 500);
    assert.equal(grant.monthly_used, 0);
    assert.equal(grant.status, 'active');
    assert.equal(grant.last_used_at, null);
    assert.equal(grant.revoked_at, null);
    const organization = await gateway.deps.bus.call(gatewayRpc.getOrganization, person, {});
    assert.equal(organization.counted_keys, 2);
    const keys = await gateway.deps.bus.call(gatewayRpc.listKeys, person, {});
    assert.deepEqual(
      keys.data.map((key) => key.id),
      [keyId],
    );
    const history = await gateway.deps.bus.call(gatewayRpc.getUsageHistory, person, {});
    assert.deepEqual(
      history.keys.map((key) => key.id),
      [keyId],
    );
  });

  test('an API key (no person) can use none of the grant operations', async () => {
    const { orgId, keyId } = await createOrgWithKey(gateway);
    const apiKey = testIdentity({ org_id: orgId, key_id: keyId });
    const create = gateway.deps.bus.call(oauthRpc.createGrant, apiKey, grantInput('read'));
    assert.equal((await rejection(create)).code, 'forbidden');
    assert.equal((await rejection(gateway.deps.bus.call(oauthRpc.listGrants, apiKey, {}))).code, 'forbidden');
    assert.equal(await gateway.deps.prisma.apiKey.count({ where: { orgId } }), 1);
  });

  test('the plan limits grants like keys: Lite has room for one credential, Starter five; Lite grants read only', async () => {
    const lite = await createOrgWithKey(gateway, { plan: 'lite', scope: 'read' });
    const liteGrant = gateway.deps.bus.call(oauthRpc.createGrant, personIdentity(lite.orgId), grantInput('read'));
    assert.equal((await rejection(liteGrant)).code, 'key_limit_reached');
    await gateway.admin({ kind: 'key.revoke', keyId: lite.keyId });
    const readWrite = gateway.deps.bus.call(oauthRpc.createGrant, personIdentity(lite.orgId), grantInput('read-write'));
    const refused = await rejection(readWrite);
    assert.equal(refused.code, 'plan_required');
    assert.equal(refused.param, 'scope');
    await createGrantWithToken(gateway, lite.orgId);
    // The grant took the one place: no key either.
    const key = gateway.deps.bus.call(gatewayRpc.createKey, personIdentity(lite.orgId), { name: 'k', scope: 'read', monthly_quota: 10 });
    assert.equal((await rejection(key)).code, 'key_limit_reached');

    const starter = await createOrgWithKey(gateway, { plan: 'starter' });
    for (let i = 0; i < 4; i++) await createGrantWithToken(gateway, starter.orgId);
    const sixth = gateway.deps.bus.call(oauthRpc.createGrant, personIdentity(starter.orgId), grantInput('read'));
    assert.equal((await rejection(sixth)).code, 'key_limit_reached');
    // A revoked grant frees its place.
    const { data } = await gateway.deps.bus.call(oauthRpc.listGrants, personIdentity(starter.orgId), {});
    await gateway.deps.bus.call(oauthRpc.revokeGrant, personIdentity(starter.orgId), { grant_id: data[0]?.id as string });
    await createGrantWithToken(gateway, starter.orgId);
  });

  test('a person never grants more than their role: a member (read) asking read-write is forbidden_scope', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const member = personIdentity(orgId, { scope: 'read' });
    const create = gateway.deps.bus.call(oauthRpc.createGrant, member, grantInput('read-write'));
    const refused = await rejection(create);
    assert.equal(refused.code, 'forbidden_scope');
    assert.equal(refused.param, 'scope');
    const read = await gateway.deps.bus.call(oauthRpc.createGrant, member, grantInput('read'));
    assert.equal(read.scope, 'read');
    assert.equal(await gateway.deps.prisma.apiKey.count({ where: { orgId, kind: 'grant' } }), 1);
  });

  test('an access token authenticates on its resource: identity is the grant with its resource, rate-limit headers, last use, usage in listGrants', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId, { quota: 50 });
    assert.match(token, /^vk_oat_[0-9A-Za-z]{38}$/);
    const stored = await gateway.deps.prisma.oAuthAccessToken.findFirstOrThrow({ where: { grantId } });
    assert.notEqual(stored.hash, token);
    assert.equal(stored.expiresAt.getTime() - clock.getTime(), 3_600_000);
    assert.equal(stored.resource, `${publicBaseUrl}/api/mcp`);
    const usage = await get('/api/mcp', token);
    assert.equal(usage.status, 200, usage.text);
    const identity = identityOf(reachedMcp('/api/mcp') as Receiver['requests'][number]);
    assert.equal(identity.key_id, grantId);
    assert.equal(identity.resource, '/api/mcp');
    assert.equal(identity.owner_user_id, person.user_id);
    assert.equal(identity.monthly_quota, 50);
    assert.equal(identity.monthly_used, 1);
    assert.equal(usage.headers.get('x-ratelimit-limit'), '50');
    assert.equal(usage.headers.get('x-ratelimit-remaining'), '49');
    assert.ok(Number(usage.headers.get('x-ratelimit-reset')) > clock.getTime() / 1000);
    const listed = await gateway.deps.bus.call(oauthRpc.listGrants, person, {});
    assert.deepEqual(
      listed.data.map((grant) => [grant.id, grant.monthly_used]),
      [[grantId, 1]],
    );
    const lastUsed = await eventually('last use recorded', async () => {
      const row = await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: grantId } });
      return row.lastUsedAt ?? undefined;
    });
    assert.equal(lastUsed.getTime(), clock.getTime());
    const standing = await gateway.deps.bus.call(gatewayRpc.keyStanding, testIdentity({ org_id: orgId }), { key_id: grantId });
    assert.deepEqual(standing, { key_id: grantId, status: 'active', scope: 'read' });
  });

  test('all tokens of a grant share one monthly count: a new token resets nothing', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId, { quota: 3 });
    const second = (await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId })).access_token;
    assert.notEqual(second, token);
    assert.equal((await get('/api/mcp', token)).status, 200);
    assert.equal((await get('/api/mcp', token)).status, 200);
    const third = await get('/api/mcp', second);
    assert.equal(third.status, 200);
    assert.equal(third.headers.get('x-ratelimit-remaining'), '0');
    const fourth = await get('/api/mcp', second);
    assertError(fourth, 429, 'quota_exceeded');
    assert.ok(fourth.headers.get('retry-after'));
    assertError(await get('/api/mcp', token), 429, 'quota_exceeded');
    assert.equal(await gateway.deps.redis.get(quotaKeys(ctx.redisPrefix, orgId, grantId, clock).monthly), '3');
  });

  test('an expired token is 401 revoked with the invalid_token challenge; a fresh token of the grant works', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId);
    assert.equal((await get('/api/mcp', token)).status, 200);
    const started = clock;
    try {
      clock = new Date(started.getTime() + 3_600_000);
      const expired = await get('/api/mcp', token);
      assertError(expired, 401, 'revoked');
      assert.equal(expired.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${mcpMetadata}"`);
      const fresh = (await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId })).access_token;
      assert.equal((await get('/api/mcp', fresh)).status, 200);
    } finally {
      clock = started;
    }
  });

  test('access tokens are deleted a day past their expiry; until then an expired one answers revoked', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, token } = await createGrantWithToken(gateway, orgId);
    const expiry = clock.getTime() + 3_600_000;
    // Every token of this file's clock expires at the same moment or later: none is a day past it yet.
    assert.equal(await deleteEndedAccessTokens(gateway.deps, new Date(expiry + 86_400_000)), 0);
    assert.equal(await gateway.deps.prisma.oAuthAccessToken.count({ where: { grantId } }), 1);
    assert.ok((await deleteEndedAccessTokens(gateway.deps, new Date(expiry + 86_400_001))) >= 1);
    assert.equal(await gateway.deps.prisma.oAuthAccessToken.count({ where: { grantId } }), 0);
    gateway.deps.tokens.invalidate({ keyIds: [grantId] });
    assertError(await get('/api/mcp', token), 401, 'unknown_key');
  });

  test('revoking a grant ends its tokens and its issuing; another organization cannot see, revoke or use it', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const other = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId);
    assert.equal((await get('/api/mcp', token)).status, 200);
    const stranger = personIdentity(other.orgId);
    for (const operation of [oauthRpc.revokeGrant, oauthRpc.issueAccessToken]) {
      const refused = await rejection(gateway.deps.bus.call(operation, stranger, { grant_id: grantId }));
      assert.equal(refused.code, 'not_found');
    }
    assert.deepEqual((await gateway.deps.bus.call(oauthRpc.listGrants, stranger, {})).data, []);
    // The key operations do not reach grants either.
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.revokeKey, person, { key_id: grantId }))).code, 'not_found');
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.getKey, person, { key_id: grantId }))).code, 'not_found');

    const revoked = await gateway.deps.bus.call(oauthRpc.revokeGrant, person, { grant_id: grantId });
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.revoked_at, clock.toISOString());
    assert.equal(revoked.monthly_used, 1);
    assertError(await get('/api/mcp', token), 401, 'revoked');
    const issuing = await rejection(gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId }));
    assert.equal(issuing.code, 'revoked');
    const standing = await gateway.deps.bus.call(gatewayRpc.keyStanding, testIdentity({ org_id: orgId }), { key_id: grantId });
    assert.equal(standing.status, 'revoked');
    const organization = await gateway.deps.bus.call(gatewayRpc.getOrganization, person, {});
    assert.equal(organization.counted_keys, 1);
  });

  test('API calls with a token are audited with the grant as actor; the log filters by it; grant changes are the person’s', async () => {
    const { orgId, key } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId);
    assert.equal((await get('/api/mcp', token)).status, 200);
    await eventually('the call is in the audit log', async () => {
      const listed = await get('/api/v1/audit-log?actor_type=grant', key);
      assert.equal(listed.status, 200, listed.text);
      if (listed.body.data.length === 0) return undefined;
      assert.deepEqual(
        listed.body.data.map((record: { actor_type: string; key_id: string; path: string }) => [
          record.actor_type,
          record.key_id,
          record.path,
        ]),
        [['grant', grantId, '/api/mcp']],
      );
      return true;
    });
    const byId = await get(`/api/v1/audit-log?key_id=${grantId}`, key);
    assert.equal(byId.body.data.length, 1);
    const byPerson = await gateway.deps.bus.call(gatewayRpc.listAuditLog, testIdentity({ org_id: orgId }), {
      limit: 10,
      actor_type: 'user',
    });
    assert.deepEqual(
      byPerson.data.map((record) => [record.key_id, record.path]),
      [[person.user_id, '/oauth/authorize']],
    );
  });

  test('the protected resource metadata (RFC 9728) of the MCP server at both addresses, and the REST API’s, readable from any origin', async () => {
    const mcpDocument = {
      resource: `${publicBaseUrl}/api/mcp`,
      authorization_servers: [publicBaseUrl],
      scopes_supported: ['read', 'read-write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Voice platform MCP server',
    };
    const restDocument = {
      resource: `${publicBaseUrl}/api/v1`,
      scopes_supported: ['read', 'read-write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Voice platform REST API (API keys only)',
      resource_documentation: `${publicBaseUrl}/api/v1/openapi.json`,
    };
    for (const [path, document] of [
      ['/.well-known/oauth-protected-resource/api/mcp', mcpDocument],
      ['/.well-known/oauth-protected-resource', mcpDocument],
      // No authorization server issues tokens for the REST API: it takes API keys.
      ['/.well-known/oauth-protected-resource/api/v1', restDocument],
    ] as const) {
      const response = await fetch(`${url}${path}`, { headers: { origin: 'https://app.example' } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await response.json(), document);
      const preflight = await fetch(`${url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    }
  });

  test('401s carry the resource metadata challenge, with invalid_token when a credential was refused; 403 asks for the scope', async () => {
    const { orgId, key } = await createOrgWithKey(gateway);
    const { token } = await createGrantWithToken(gateway, orgId, { scope: 'read' });
    const readKey = (await gateway.admin({ kind: 'key.create', orgId, scope: 'read', monthlyQuota: 10 })) as { key: string };
    const mcpCall = (authorization?: string) =>
      call(url, 'POST', '/api/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
      });
    const missing = await mcpCall();
    assertError(missing, 401, 'missing');
    assert.equal(missing.headers.get('www-authenticate'), `Bearer resource_metadata="${mcpMetadata}"`);
    const missingRest = await get('/api/v1/leads');
    assertError(missingRest, 401, 'missing');
    assert.equal(missingRest.headers.get('www-authenticate'), `Bearer resource_metadata="${restMetadata}"`);
    for (const credential of [`vk_oat_${'a'.repeat(38)}`, tamperedCredential(token), 'not-a-key', tamperedCredential(key)]) {
      const refused = await mcpCall(`Bearer ${credential}`);
      assertError(refused, 401, 'unknown_key');
      assert.equal(refused.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${mcpMetadata}"`);
    }
    const write = await call(url, 'POST', '/api/v1/leads', { key: readKey.key, body: { name: 'Nope' } });
    assertError(write, 403, 'forbidden_scope');
    assert.equal(
      write.headers.get('www-authenticate'),
      `Bearer error="insufficient_scope", scope="read-write", resource_metadata="${restMetadata}"`,
    );
    // A success carries no challenge.
    const listed = await fetch(`${url}/api/mcp`, { headers: bearer(token) });
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get('www-authenticate'), null);
  });

  test('a token is accepted on the resource it was granted for alone: its MCP URL, never another MCP URL nor the REST API', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const resourcePath = '/api/mcp/x/leads/readonly';
    const { grantId, token } = await createGrantWithToken(gateway, orgId, { scope: 'read-write', resourcePath, quota: 100 });
    // On its own URL (a trailing slash is the same URL): the identity carries the resource for the mcp service.
    for (const path of [resourcePath, `${resourcePath}/`]) {
      assert.equal((await get(path, token)).status, 200);
      const identity = identityOf(reachedMcp(path) as Receiver['requests'][number]);
      assert.deepEqual([identity.key_id, identity.scope, identity.resource], [grantId, 'read-write', resourcePath]);
    }
    const reachedBefore = mcp.requests.length;
    const otherMcpMetadata = (path: string) =>
      `Bearer error="invalid_token", error_description="This access token was issued for another resource", resource_metadata="${publicBaseUrl}/.well-known/oauth-protected-resource${path}"`;
    // Another MCP URL, wider or not: refused, naming that URL's metadata (where a token for it is had).
    for (const path of ['/api/mcp', '/api/mcp/x/leads', '/api/mcp/readonly', '/api/mcp/x/leads,calls/readonly']) {
      const refused = await call(url, 'POST', path, {
        key: token,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream' },
      });
      assertError(refused, 401, 'invalid_token');
      assert.match(refused.body.error.message, new RegExp(`issued for ${publicBaseUrl}${resourcePath}`));
      assert.equal(refused.headers.get('www-authenticate'), otherMcpMetadata(path));
    }
    // The REST API takes API keys only: an MCP token is refused there, naming the REST API's metadata.
    for (const [method, path, body] of [
      ['POST', '/api/v1/phone/sms', { to: '+14155550100', body: 'hello' }],
      ['POST', '/api/v1/leads', { name: 'Nope' }],
      ['GET', '/api/v1/usage', undefined],
    ] as const) {
      const refused = await call(url, method, path, { key: token, ...(body ? { body } : {}) });
      assertError(refused, 401, 'invalid_token');
      assert.match(refused.body.error.message, /the REST API takes API keys only/);
      assert.equal(
        refused.headers.get('www-authenticate'),
        `Bearer error="invalid_token", error_description="This access token was issued for another resource", resource_metadata="${restMetadata}"`,
      );
    }
    assert.equal(mcp.requests.length, reachedBefore, 'nothing refused reached a service');
    const [grant] = (await gateway.deps.bus.call(oauthRpc.listGrants, personIdentity(orgId), {})).data;
    assert.equal(grant?.monthly_used, 2, 'refused requests count nothing');
  });

  test('a token carries its grant’s resource: a refresh cannot name another; a grant from before resources takes the first one named', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, person } = await createGrantWithToken(gateway, orgId, { resourcePath: '/api/mcp/x/calls' });
    const moved = await rejection(
      gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId, resource: `${publicBaseUrl}/api/mcp` }),
    );
    assert.deepEqual([moved.code, moved.param], ['invalid_request', 'resource']);
    const same = await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, {
      grant_id: grantId,
      resource: `${publicBaseUrl}/api/mcp/x/calls`,
    });
    assert.equal((await get('/api/mcp/x/calls', same.access_token)).status, 200);
    assertError(await get('/api/mcp', same.access_token), 401, 'invalid_token');

    // A grant and a token from before resources were kept (both null): the token is ended, so its client
    // refreshes; the refresh names the resource the console kept, which the grant takes from then on.
    await gateway.deps.prisma.apiKey.update({ where: { id: grantId }, data: { resource: null } });
    const legacy = await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, {
      grant_id: grantId,
      resource: `${publicBaseUrl}/api/mcp/x/calls`,
    });
    await gateway.deps.prisma.apiKey.update({ where: { id: grantId }, data: { resource: null } });
    await gateway.deps.prisma.oAuthAccessToken.updateMany({ where: { grantId }, data: { resource: null } });
    gateway.deps.tokens.invalidate({ keyIds: [grantId] });
    assertError(await get('/api/mcp/x/calls', legacy.access_token), 401, 'revoked');
    const unnamed = await rejection(gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId }));
    assert.deepEqual([unnamed.code, unnamed.param], ['invalid_request', 'resource']);
    const refreshed = await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, {
      grant_id: grantId,
      resource: `${publicBaseUrl}/api/mcp/x/leads`,
    });
    assert.equal((await get('/api/mcp/x/leads', refreshed.access_token)).status, 200);
    const stored = await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: grantId } });
    assert.equal(stored.resource, `${publicBaseUrl}/api/mcp/x/leads`);
  });

  test('a grant acts for its grantor: another person gets no token of it; a grantor whose role no longer allows its scope ends it', async () => {
    const { orgId, key } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId, { scope: 'read-write' });
    const colleague = personIdentity(orgId);
    assert.equal((await rejection(gateway.deps.bus.call(oauthRpc.issueAccessToken, colleague, { grant_id: grantId }))).code, 'forbidden');
    // The grantor as they stand now: a member, who may grant read only.
    const demoted = { ...person, scope: 'read' as const };
    assert.equal((await rejection(gateway.deps.bus.call(oauthRpc.issueAccessToken, demoted, { grant_id: grantId }))).code, 'revoked');
    assertError(await get('/api/mcp', token), 401, 'revoked');
    const [grant] = (await gateway.deps.bus.call(oauthRpc.listGrants, person, {})).data;
    assert.equal(grant?.status, 'revoked');
    await eventually('the end is in the audit log as the platform’s, with its reason', async () => {
      const listed = await get(`/api/v1/audit-log?key_id=${grantId}`, key);
      const records = listed.body.data as Array<{
        actor_type: string;
        key_id: string;
        reason: string | null;
        method: string;
        path: string;
      }>;
      if (records.length === 0) return undefined;
      assert.deepEqual(
        records.map((record) => [record.actor_type, record.key_id, record.reason, record.method, record.path]),
        [['system', grantId, 'role_changed', 'POST', `/dashboard/settings/connected-apps/${grantId}/revoke`]],
      );
      return true;
    });
  });

  test('the platform’s own revocations are audited as system with their reason, a person’s grants end when they leave', async () => {
    const { orgId, key } = await createOrgWithKey(gateway);
    const first = await createGrantWithToken(gateway, orgId);
    const ended = await gateway.deps.bus.call(oauthRpc.endGrant, testIdentity({ org_id: orgId, key_id: 'system' }), {
      grant_id: first.grantId,
      reason: 'refresh_token_reuse',
    });
    assert.equal(ended.status, 'revoked');
    assertError(await get('/api/mcp', first.token), 401, 'revoked');
    // Ending it again changes nothing and records nothing more.
    await gateway.deps.bus.call(oauthRpc.endGrant, testIdentity({ org_id: orgId }), { grant_id: first.grantId, reason: 'code_reuse' });

    // A person's grants, ended because they were removed; another person's stay.
    const owner = personIdentity(orgId);
    const leaving = personIdentity(orgId);
    const made: string[] = [];
    for (const scope of ['read', 'read-write'] as const) {
      const grant = await gateway.deps.bus.call(oauthRpc.createGrant, leaving, grantInput(scope));
      made.push(grant.id);
    }
    const staying = await createGrantWithToken(gateway, orgId);
    const removed = await gateway.deps.bus.call(oauthRpc.revokeGrantsOfPerson, owner, {
      granted_by: leaving.user_id as string,
      reason: 'member_removed',
      above: null,
    });
    assert.deepEqual(removed.data.map((grant) => grant.id).sort(), [...made].sort());
    assert.equal((await get('/api/mcp', staying.token)).status, 200);
    // A demotion ends only what may write.
    const demotedGrants: OAuthGrant[] = [];
    for (const scope of ['read', 'read-write'] as const) {
      demotedGrants.push(await gateway.deps.bus.call(oauthRpc.createGrant, owner, grantInput(scope)));
    }
    const capped = await gateway.deps.bus.call(oauthRpc.revokeGrantsOfPerson, owner, {
      granted_by: owner.user_id as string,
      reason: 'role_changed',
      above: 'read',
    });
    assert.deepEqual(
      capped.data.map((grant) => grant.id),
      [demotedGrants[1]?.id],
    );
    await eventually('the ends are in the audit log', async () => {
      const listed = await get('/api/v1/audit-log?actor_type=system', key);
      const records = listed.body.data as Array<{ key_id: string; reason: string }>;
      if (records.length < 4) return undefined;
      assert.deepEqual(
        records.map((record) => [record.key_id, record.reason]).sort(),
        [
          [first.grantId, 'refresh_token_reuse'],
          [made[0], 'member_removed'],
          [made[1], 'member_removed'],
          [demotedGrants[1]?.id, 'role_changed'],
        ].sort(),
      );
      return true;
    });
    const people = await get('/api/v1/audit-log?actor_type=user', key);
    assert.ok(
      (people.body.data as Array<{ path: string }>).every((record) => !record.path.endsWith('/revoke')),
      'no person is recorded revoking what the platform ended',
    );
  });
});

/** The console's authorization server is reached through the gateway, as its pages are. */
describe('the OAuth authorization server routes to the console', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  // A console stand-in that records what reaches it.
  let consoleServer: Receiver;

  before(async () => {
    ctx = await createTestContext();
    consoleServer = await startReceiver();
    gateway = await startGateway(ctx, { CONSOLE_URL: new URL(consoleServer.url).origin }, { auditWorker: false });
  });
  after(async () => {
    await gateway.close();
    await consoleServer.close();
    await ctx.cleanup();
  });

  const reached = (url: string) => consoleServer.requests.filter((request) => request.url === url);

  test('metadata and /oauth/* reach the console with the cookie; a client’s Basic credentials only on /oauth, never a Bearer', async () => {
    const metadata = await gateway.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    assert.equal(metadata.statusCode, 200);
    assert.equal(metadata.headers['access-control-allow-origin'], '*');
    assert.equal(reached('/.well-known/oauth-authorization-server').length, 1);

    const basic = `Basic ${Buffer.from('cli_2x8Fq0aZ9kLm4Rt7:secret').toString('base64')}`;
    const token = await gateway.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.example' },
      payload: 'grant_type=authorization_code&code=abc',
    });
    assert.equal(token.statusCode, 200);
    assert.equal(token.headers['access-control-allow-origin'], '*');
    const [tokenRequest] = reached('/oauth/token');
    assert.equal(tokenRequest?.headers.authorization, basic);
    assert.equal(tokenRequest?.body, 'grant_type=authorization_code&code=abc');

    const bearerSent = await gateway.app.inject({ method: 'POST', url: '/oauth/revoke', headers: { authorization: 'Bearer vk_live_x' } });
    assert.equal(bearerSent.statusCode, 200);
    assert.equal(reached('/oauth/revoke')[0]?.headers.authorization, undefined);

    const authorize = await gateway.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=x', headers: { cookie: 'session=s1' } });
    assert.equal(authorize.statusCode, 200);
    // A page people navigate to: no cross-origin reading.
    assert.equal(authorize.headers['access-control-allow-origin'], undefined);
    assert.equal(reached('/oauth/authorize?client_id=x')[0]?.headers.cookie, 'session=s1');

    const page = await gateway.app.inject({ method: 'GET', url: '/dashboard', headers: { authorization: basic } });
    assert.equal(page.statusCode, 200);
    assert.equal(reached('/dashboard')[0]?.headers.authorization, undefined);
  });

  test('a preflight to the token and registration endpoints is answered by the gateway', async () => {
    for (const url of ['/oauth/token', '/oauth/register']) {
      const reachedBefore = reached(url).length;
      const preflight = await gateway.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
      assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/);
      assert.equal(reached(url).length, reachedBefore, 'the console never sees the preflight');
    }
  });
});
