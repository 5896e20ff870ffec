import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type HttpApp, newId, parseEnv, verifyIdentity } from '@voice/kit';
import { createTestContext, type Receiver, startReceiver, type TestContext } from '@voice/kit/testing';
import { gatewayRpc, requestBodyLimitBytes } from '@voice/proto';
import { buildApp as buildTelephony } from '../../services/telephony/src/app.js';
import { connectDeps as connectTelephony, type TelephonyDeps } from '../../services/telephony/src/deps.js';
import { envSchema as telephonyEnvSchema } from '../../services/telephony/src/env.js';
import { bearer, createGrantWithToken, createOrgWithKey, personIdentity, startGateway, type TestGateway } from './support/harness.js';

describe('the gateway proxies to services with signed identity', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let telephony: HttpApp;
  let telephonyDeps: TelephonyDeps;
  let telephonyUrl: string;

  before(async () => {
    ctx = await createTestContext();
    telephonyDeps = await connectTelephony(parseEnv(telephonyEnvSchema, ctx.env));
    telephony = await buildTelephony(telephonyDeps);
    await telephony.listen({ host: '127.0.0.1', port: 0 });
    telephonyUrl = `http://127.0.0.1:${(telephony.server.address() as AddressInfo).port}`;
    // Nothing listens on the leads port: the gateway must answer 503 quickly for it.
    gateway = await startGateway(ctx, { TELEPHONY_URL: telephonyUrl, LEADS_URL: 'http://127.0.0.1:9' });
  });
  after(async () => {
    await gateway.close();
    await telephony.close();
    await telephonyDeps.close();
    await ctx.cleanup();
  });

  test('GET /api/v1/phone/calls reaches telephony, which reads Postgres and returns an empty cursor page', async () => {
    const { key } = await createOrgWithKey(gateway);
    const response = await gateway.app.inject({
      method: 'GET',
      url: '/api/v1/phone/calls?limit=5&direction=inbound',
      headers: bearer(key),
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: [], has_more: false, next_cursor: null, prev_cursor: null });
    assert.equal(response.headers['x-ratelimit-remaining'], '999');
  });

  test("an organization sees only its own calls; another's call id is 404", async () => {
    const a = await createOrgWithKey(gateway);
    const b = await createOrgWithKey(gateway);
    const id = newId('call');
    await telephonyDeps.prisma.call.create({
      data: {
        id,
        orgId: a.orgId,
        direction: 'inbound',
        fromNumber: '+14155550100',
        toNumber: '+14155550199',
        status: 'completed',
        source: 'inbound',
        outcome: 'qualified_lead',
      },
    });
    const mine = await gateway.app.inject({ method: 'GET', url: '/api/v1/phone/calls?outcome=qualified_lead', headers: bearer(a.key) });
    assert.deepEqual(
      mine.json().data.map((call: { id: string }) => call.id),
      [id],
    );
    const theirs = await gateway.app.inject({ method: 'GET', url: '/api/v1/phone/calls', headers: bearer(b.key) });
    assert.deepEqual(theirs.json().data, []);
    const direct = await gateway.app.inject({ method: 'GET', url: `/api/v1/phone/calls/${id}`, headers: bearer(b.key) });
    assert.equal(direct.statusCode, 404);
    assert.equal(direct.json().error.code, 'not_found');
  });

  test('a service refuses a direct call with forged identity headers (401)', async () => {
    const forged = Buffer.from(JSON.stringify({ org_id: 'org_attacker000', key_id: 'key_x', scope: 'read-write', plan: 'pro' })).toString(
      'base64url',
    );
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-voice-identity': forged },
      { 'x-voice-identity': forged, 'x-voice-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${telephonyUrl}/api/v1/phone/calls`, { headers });
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'unauthenticated');
    }
  });

  test('identity headers sent by a client to the gateway are replaced, not trusted', async () => {
    const { key } = await createOrgWithKey(gateway);
    const response = await gateway.app.inject({
      method: 'GET',
      url: '/api/v1/phone/calls',
      headers: { ...bearer(key), 'x-voice-identity': 'forged', 'x-voice-signature': 'forged' },
    });
    assert.equal(response.statusCode, 200);
  });

  test("a body over the service's limit is 413 payload_too_large at the gateway, and the next request is served", async () => {
    const { key } = await createOrgWithKey(gateway);
    const oversize = JSON.stringify({ to: '+14155550123', body: 'x'.repeat(requestBodyLimitBytes.telephony) });
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/api/v1/phone/sms',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: oversize,
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().error.code, 'payload_too_large');
    const next = await gateway.app.inject({ method: 'GET', url: '/api/v1/phone/calls', headers: bearer(key) });
    assert.equal(next.statusCode, 200);
  });

  test('a service that is down gives 503 unavailable in the envelope, quickly', async () => {
    const { key } = await createOrgWithKey(gateway);
    const response = await gateway.app.inject({ method: 'GET', url: '/api/v1/leads', headers: bearer(key) });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().error.code, 'unavailable');
  });

  test('unknown routes are 404 in the envelope; bad input to a service is 400 with param', async () => {
    const { key } = await createOrgWithKey(gateway);
    const unknown = await gateway.app.inject({ method: 'GET', url: '/api/v1/nothing-here', headers: bearer(key) });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'not_found');
    const badLimit = await gateway.app.inject({ method: 'GET', url: '/api/v1/phone/calls?limit=1000', headers: bearer(key) });
    assert.equal(badLimit.statusCode, 400);
    assert.equal(badLimit.json().error.code, 'invalid_request');
    assert.equal(badLimit.json().error.param, 'limit');
    const badCursor = await gateway.app.inject({ method: 'GET', url: '/api/v1/phone/calls?cursor=bm9wZQ', headers: bearer(key) });
    assert.equal(badCursor.statusCode, 400);
    assert.equal(badCursor.json().error.code, 'invalid_cursor');
  });
});

describe('what a service receives from the gateway', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  // A service stand-in that records what reaches it.
  let upstream: Receiver;

  before(async () => {
    ctx = await createTestContext();
    upstream = await startReceiver();
    gateway = await startGateway(ctx, { TELEPHONY_URL: new URL(upstream.url).origin, MCP_URL: new URL(upstream.url).origin });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
    await ctx.cleanup();
  });

  test("the signed identity, request id and client address; never the key, cookies or a client's own identity headers", async () => {
    const { key, orgId, keyId } = await createOrgWithKey(gateway);
    const url = '/api/v1/phone/calls?limit=5';
    const response = await gateway.app.inject({
      method: 'GET',
      url,
      remoteAddress: '198.51.100.7',
      headers: {
        ...bearer(key),
        cookie: 'session=secret',
        'x-voice-identity': 'forged',
        'x-voice-signature': 'forged',
        'request-id': 'request_chosenbytheclient',
        'accept-language': 'de',
      },
    });
    assert.equal(response.statusCode, 200);
    // The gateway also fetches the service's /openapi.json (its scope check); the API request is the one here.
    const forwarded = upstream.requests.find((request) => request.url === url);
    assert.ok(forwarded, 'the request reached the service');
    const { headers } = forwarded;
    assert.equal(headers.authorization, undefined);
    assert.equal(headers.cookie, undefined);
    assert.equal(headers['request-id'], response.headers['request-id']);
    assert.equal(headers['x-forwarded-for'], '198.51.100.7');
    assert.equal(headers['accept-language'], 'de');
    const identity = verifyIdentity(headers, { method: 'GET', url }, ctx.env.INTERNAL_SIGNING_SECRET as string);
    assert.deepEqual([identity.org_id, identity.key_id, identity.request_id], [orgId, keyId, response.headers['request-id']]);
    // The admin CLI's key belongs to nobody.
    assert.equal(identity.owner_user_id, undefined);
  });

  test('the signed identity names the person a key or grant belongs to: who created the key, or who granted the app', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const person = personIdentity(orgId);
    const created = await gateway.deps.bus.call(gatewayRpc.createKey, person, { name: 'agent', scope: 'read', monthly_quota: 10 });
    const { token, person: granter } = await createGrantWithToken(gateway, orgId);
    for (const [credential, owner, path] of [
      [created.key, person.user_id, '/api/v1/phone/calls'],
      // An access token is for its MCP URL only.
      [token, granter.user_id, '/api/mcp'],
    ] as const) {
      const url = `${path}?owner=${owner}`;
      const response = await gateway.app.inject({ method: 'GET', url, headers: bearer(credential) });
      assert.equal(response.statusCode, 200);
      const forwarded = upstream.requests.find((request) => request.url === url);
      assert.ok(forwarded, 'the request reached the service');
      const identity = verifyIdentity(forwarded.headers, { method: 'GET', url }, ctx.env.INTERNAL_SIGNING_SECRET as string);
      assert.equal(identity.owner_user_id, owner);
      assert.equal(identity.user_id, undefined, 'a credential is never the person themselves');
    }
  });
});
