import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { verifyIdentity } from '@voice/kit';
import { createTestContext, type Receiver, startReceiver, type TestContext } from '@voice/kit/testing';
import { gatewayRpc, planLimits, testModeLimits, testTwinOf } from '@voice/proto';
import { hashKey, isWellFormedKey } from '../src/keys/format.js';
import {
  bearer,
  createGrantWithToken,
  createOrgWithKey,
  personIdentity,
  rejection,
  startGateway,
  type TestGateway,
} from './support/harness.js';

const run = promisify(execFile);

// Test mode at the gateway: a test key is its organization's test twin's (proto's mode.ts), so what it does is
// the twin's: its identity, its counters, its limits.
describe('test keys', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let upstream: Receiver;

  before(async () => {
    ctx = await createTestContext();
    upstream = await startReceiver();
    gateway = await startGateway(ctx, { TELEPHONY_URL: new URL(upstream.url).origin });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
    await ctx.cleanup();
  });

  const createTestKey = async (orgId: string, scope: 'read' | 'read-write' = 'read-write') =>
    (await gateway.admin({ kind: 'key.create', orgId: testTwinOf(orgId), scope, monthlyQuota: 10 })) as {
      id: string;
      key: string;
      org_id: string;
      monthly_quota: number;
    };
  const usage = (key: string) => gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });

  test("the admin's --mode test makes a vk_test_ key of the twin, with test mode's quota whatever was asked", async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const created = await createTestKey(orgId);
    assert.match(created.key, /^vk_test_[0-9A-Za-z]{38}$/);
    assert.ok(isWellFormedKey(created.key));
    assert.equal(created.org_id, testTwinOf(orgId));
    assert.equal(created.monthly_quota, testModeLimits.monthlyRequests);
    const stored = await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    assert.equal(stored.hash, hashKey(created.key));
    // The twin's row was made from the live one: its name and plan.
    const twin = await gateway.deps.prisma.organization.findUniqueOrThrow({ where: { id: testTwinOf(orgId) } });
    assert.deepEqual([twin.name, twin.plan], ['Acme', 'pro']);
  });

  test("a test key reaches the services as the twin, and its requests count on the twin's counters, never the live ones", async () => {
    const { orgId, key: liveKey } = await createOrgWithKey(gateway);
    const { key: testKey } = await createTestKey(orgId);
    const url = '/api/v1/phone/calls?mode=test';
    const proxied = await gateway.app.inject({ method: 'GET', url, headers: bearer(testKey) });
    assert.equal(proxied.statusCode, 200);
    const forwarded = upstream.requests.find((request) => request.url === url);
    assert.ok(forwarded, 'the request reached the service');
    const identity = verifyIdentity(forwarded.headers, { method: 'GET', url }, ctx.env.INTERNAL_SIGNING_SECRET as string);
    assert.equal(identity.org_id, testTwinOf(orgId));

    for (let i = 0; i < 3; i++) assert.equal((await usage(testKey)).statusCode, 200);
    const test = (await usage(testKey)).json();
    const live = (await usage(liveKey)).json();
    assert.equal(test.daily.limit, testModeLimits.dailyRequests);
    assert.equal(test.monthly.quota, testModeLimits.monthlyRequests);
    assert.equal(test.daily.used, 5, 'the proxied call and four usage reads, on the twin alone');
    assert.equal(live.daily.used, 1, "the live organization's day saw only its own request");
    assert.equal(live.daily.limit, planLimits.pro.dailyRequests);
  });

  test('the console makes test keys in the twin, and an OAuth grant made in test mode is the twin’s', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const person = personIdentity(testTwinOf(orgId));
    const created = await gateway.deps.bus.call(gatewayRpc.createKey, person, { name: 'ci', scope: 'read-write', monthly_quota: 5 });
    assert.match(created.key, /^vk_test_/);
    const listed = await gateway.deps.bus.call(gatewayRpc.listKeys, person, { limit: 10 });
    assert.deepEqual(
      listed.data.map((key: { id: string }) => key.id),
      [created.record.id],
    );
    const liveListed = await gateway.deps.bus.call(gatewayRpc.listKeys, personIdentity(orgId), { limit: 10 });
    assert.equal(
      liveListed.data.some((key: { id: string }) => key.id === created.record.id),
      false,
    );

    const { token } = await createGrantWithToken(gateway, testTwinOf(orgId));
    const url = '/api/mcp';
    const response = await gateway.app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.notEqual(response.statusCode, 401);
    const grants = await gateway.deps.prisma.apiKey.findMany({ where: { kind: 'grant', orgId: testTwinOf(orgId) } });
    assert.equal(grants.length, 1);
    assert.equal(grants[0]?.monthlyQuota, testModeLimits.monthlyRequests);
  });

  test('the CLI: key create --mode test prints a vk_test_ key of the twin; a wrong --mode is a usage error', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const admin = (args: string[]) =>
      run('npm', ['run', '--silent', 'admin', '--', ...args], {
        cwd: new URL('../..', import.meta.url).pathname,
        env: { ...process.env, ...ctx.env },
      });
    const created = JSON.parse(
      (await admin(['key', 'create', '--org', orgId, '--scope', 'read', '--quota', '5', '--mode', 'test'])).stdout,
    );
    assert.match(created.key, /^vk_test_/);
    assert.equal(created.org_id, testTwinOf(orgId));
    const listed = JSON.parse((await admin(['key', 'list', '--org', orgId, '--mode', 'test'])).stdout);
    assert.deepEqual(
      listed.data.map((key: { id: string }) => key.id),
      [created.id],
    );
    const wrong = await admin(['key', 'create', '--org', orgId, '--scope', 'read', '--quota', '5', '--mode', 'staging']).then(
      () => assert.fail('a wrong mode was accepted'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--mode must be live or test/);
  });

  test("a plan change reaches the twin; the twin's plan cannot be set apart; org list shows no twins", async () => {
    const { orgId } = await createOrgWithKey(gateway, { plan: 'starter' });
    const { key: testKey } = await createTestKey(orgId);
    await gateway.admin({ kind: 'org.set-plan', orgId, plan: 'lite' });
    const twin = await gateway.deps.prisma.organization.findUniqueOrThrow({ where: { id: testTwinOf(orgId) } });
    assert.equal(twin.plan, 'lite');
    const narrowed = await gateway.deps.prisma.apiKey.findFirstOrThrow({ where: { hash: hashKey(testKey) } });
    assert.equal(narrowed.scope, 'read', 'Lite allows read keys only, in test mode too');
    const refused = await rejection(gateway.admin({ kind: 'org.set-plan', orgId: testTwinOf(orgId), plan: 'pro' }));
    assert.equal(refused.code, 'invalid_request');
    const listed = (await gateway.admin({ kind: 'org.list' })) as { data: Array<{ id: string }> };
    const ids = listed.data.map((org) => org.id);
    assert.ok(ids.includes(orgId));
    assert.equal(
      ids.some((id) => id.startsWith('org_test_')),
      false,
    );
  });
});
