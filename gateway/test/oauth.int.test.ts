import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestContext, eventually, type Receiver, startReceiver, type TestContext, testIdentity } from '@voice/kit/testing';
import { gatewayRpc, oauthRpc } from '@voice/proto';
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
const grantInput = (scope: 'read' | 'read-write') => ({
  client_id: 'cli_2x8Fq0aZ9kLm4Rt7',
  client_name: 'Claude',
  scope,
  monthly_quota: 10,
});

const publicBaseUrl = 'https://voice.example.com';
const mcpMetadata = `${publicBaseUrl}/.well-known/oauth-protected-resource/api/mcp`;
const restMetadata = `${publicBaseUrl}/.well-known/oauth-protected-resource`;

/** OAuth grants (oauthRpc) and their access tokens at the gateway, with a clock the test moves. */
describe('OAuth grants and access tokens', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let url: string;
  let clock = new Date();

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx, { PUBLIC_BASE_URL: publicBaseUrl, AUDIT_FLUSH_MS: '50' }, { now: () => clock });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    gateway.app.server.closeAllConnections();
    await gateway.close();
    await ctx.cleanup();
  });

  const get = (path: string, token?: string) => call(url, 'GET', path, token ? { key: token } : {});

  test('createGrant records the client, the person, scope and quota; the grant counts as a key but is not listed with keys', async () => {
    const { orgId, keyId } = await createOrgWithKey(gateway, { plan: 'starter' });
    const person = personIdentity(orgId);
    const grant = await gateway.deps.bus.call(oauthRpc.createGrant, person, {
      client_id: 'cli_2x8Fq0aZ9kLm4Rt7',
      client_name: 'Claude',
      scope: 'read-write',
      monthly_quota: 500,
    });
    assert.match(grant.id, /^grt_[0-9A-Za-z]{8,40}$/);
    assert.equal(grant.object, 'oauth_grant');
    assert.equal(grant.org_id, orgId);
    assert.equal(grant.client_id, 'cli_2x8Fq0aZ9kLm4Rt7');
    assert.equal(grant.client_name, 'Claude');
    assert.equal(grant.granted_by, person.user_id);
    assert.equal(grant.scope, 'read-write');
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

  test('an access token authenticates like a key: identity is the grant, rate-limit headers, last use, usage in listGrants', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId, { quota: 50 });
    assert.match(token, /^vk_oat_[0-9A-Za-z]{38}$/);
    const stored = await gateway.deps.prisma.oAuthAccessToken.findFirstOrThrow({ where: { grantId } });
    assert.notEqual(stored.hash, token);
    assert.equal(stored.expiresAt.getTime() - clock.getTime(), 3_600_000);
    const usage = await get('/api/v1/usage', token);
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.key_id, grantId);
    assert.equal(usage.body.monthly.quota, 50);
    assert.equal(usage.body.monthly.used, 1);
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
    assert.equal((await get('/api/v1/usage', token)).status, 200);
    assert.equal((await get('/api/v1/usage', token)).status, 200);
    const third = await get('/api/v1/usage', second);
    assert.equal(third.status, 200);
    assert.equal(third.headers.get('x-ratelimit-remaining'), '0');
    const fourth = await get('/api/v1/usage', second);
    assertError(fourth, 429, 'quota_exceeded');
    assert.ok(fourth.headers.get('retry-after'));
    assertError(await get('/api/v1/usage', token), 429, 'quota_exceeded');
    assert.equal(await gateway.deps.redis.get(quotaKeys(ctx.redisPrefix, orgId, grantId, clock).monthly), '3');
  });

  test('an expired token is 401 revoked with the invalid_token challenge; a fresh token of the grant works', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId);
    assert.equal((await get('/api/v1/usage', token)).status, 200);
    const started = clock;
    try {
      clock = new Date(started.getTime() + 3_600_000);
      const expired = await get('/api/v1/usage', token);
      assertError(expired, 401, 'revoked');
      assert.equal(expired.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${restMetadata}"`);
      const fresh = (await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId })).access_token;
      assert.equal((await get('/api/v1/usage', fresh)).status, 200);
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
    assertError(await get('/api/v1/usage', token), 401, 'unknown_key');
  });

  test('revoking a grant ends its tokens and its issuing; another organization cannot see, revoke or use it', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const other = await createOrgWithKey(gateway);
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId);
    assert.equal((await get('/api/v1/usage', token)).status, 200);
    const stranger = personIdentity(other.orgId);
    for (const operation of [oauthRpc.revokeGrant, oauthRpc.issueAccessToken]) {
      const refused = await rejection(gateway.deps.bus.call(operation, stranger, { grant_id: grantId }));
      assert.equal(refused.code, 'not_found');
    }
    assert.deepEqual((await gateway.deps.bus.call(oauthRpc.listGrants, stranger, {})).data, []);
    // The key operations do not reach grants either.
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.revokeKey, person, { key_id: grantId }))).code, 'not_found');

    const revoked = await gateway.deps.bus.call(oauthRpc.revokeGrant, person, { grant_id: grantId });
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.revoked_at, clock.toISOString());
    assert.equal(revoked.monthly_used, 1);
    assertError(await get('/api/v1/usage', token), 401, 'revoked');
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
    assert.equal((await get('/api/v1/usage', token)).status, 200);
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
        [['grant', grantId, '/api/v1/usage']],
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

  test('the protected resource metadata (RFC 9728) at both addresses, readable from any origin', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${url}${path}`, { headers: { origin: 'https://app.example' } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await response.json(), {
        resource: `${publicBaseUrl}/api/mcp`,
        authorization_servers: [publicBaseUrl],
        scopes_supported: ['read', 'read-write'],
        bearer_methods_supported: ['header'],
        resource_name: 'Voice platform MCP server and REST API',
      });
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
    for (const credential of [`vk_oat_${'a'.repeat(38)}`, `${token.slice(0, -1)}x`, 'not-a-key', `${key.slice(0, -1)}x`]) {
      const refused = await mcpCall(`Bearer ${credential}`);
      assertError(refused, 401, 'unknown_key');
      assert.equal(refused.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${mcpMetadata}"`);
    }
    const write = await call(url, 'POST', '/api/v1/leads', { key: token, body: { name: 'Nope' } });
    assertError(write, 403, 'forbidden_scope');
    assert.equal(
      write.headers.get('www-authenticate'),
      `Bearer error="insufficient_scope", scope="read-write", resource_metadata="${restMetadata}"`,
    );
    // A success carries no challenge.
    const usage = await fetch(`${url}/api/v1/usage`, { headers: bearer(token) });
    assert.equal(usage.status, 200);
    assert.equal(usage.headers.get('www-authenticate'), null);
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
