import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '@voice/kit';
import {
  createTestContext,
  eventually,
  type OwnServer,
  type Receiver,
  startOwnRedis,
  startReceiver,
  type TestContext,
  testIdentity,
} from '@voice/kit/testing';
import { gatewayRpc, oauthRpc } from '@voice/proto';
import { redisAppendOnly } from '../src/quota/persistence.js';
import { quotaKeys } from '../src/quota/quota.js';
import { bearer, createGrantWithToken, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

describe('Redis restarts without its data: the quota counters continue from the audit log', () => {
  // A Redis of this file's own, restarted without its data: the shared one is never flushed.
  let redis: OwnServer;
  let ctx: TestContext;
  let gateway: TestGateway;
  // The mcp service's stand-in, where access tokens are used (their resource is /api/mcp).
  let mcp: Receiver;

  before(async () => {
    redis = await startOwnRedis();
    ctx = await createTestContext();
    mcp = await startReceiver();
    gateway = await startGateway(ctx, {
      REDIS_URL: redis.url,
      AUDIT_PUBLISH_MS: '20',
      AUDIT_FLUSH_MS: '20',
      MCP_URL: new URL(mcp.url).origin,
    });
  });
  after(async () => {
    await gateway?.close();
    await mcp?.close();
    await ctx?.cleanup();
    await redis?.close();
  });

  const usage = (key: string) => gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
  /** A call keys and access tokens both may make: the MCP endpoint. */
  const mcpCall = (credential: string) => gateway.app.inject({ method: 'GET', url: '/api/mcp', headers: bearer(credential) });

  test("the key's month and the organization's day go on from where they were, and the quota still ends at its limit", async () => {
    const { key, orgId, keyId } = await createOrgWithKey(gateway, { quota: 10 });
    for (let i = 0; i < 6; i++) assert.equal((await usage(key)).statusCode, 200);
    // The six requests are in the audit log before Redis goes.
    await eventually(
      'the six requests in the audit log',
      async () => (await gateway.deps.prisma.auditRecord.count({ where: { orgId } })) === 6,
    );
    const counters = quotaKeys(ctx.redisPrefix, orgId, keyId, new Date());
    assert.equal(await gateway.deps.redis.get(counters.monthly), '6');

    await redis.restart();
    await eventually('the restarted Redis to be empty', async () => (await gateway.deps.redis.dbsize()) === 0);

    const first = await usage(key);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-remaining'], '3', 'the seventh request of the month, not the first');
    assert.equal(await gateway.deps.redis.get(counters.monthly), '7');
    assert.equal(await gateway.deps.redis.get(counters.daily), '7');
    assert.ok((await gateway.deps.redis.ttl(counters.monthly)) > 0, 'the rebuilt counter still expires after its month');
    const rest = [];
    for (let i = 0; i < 5; i++) rest.push((await usage(key)).statusCode);
    assert.deepEqual(rest, [200, 200, 200, 429, 429]);
  });

  test("a day's counter is seeded from API calls only: the console's actions in the audit log do not count", async () => {
    const { key, orgId, keyId } = await createOrgWithKey(gateway, { quota: 10 });
    // Two console actions today (a person creates keys), audited with actor `user` before any API call.
    const userId = newId('user');
    const person = testIdentity({ org_id: orgId, key_id: userId, user_id: userId });
    for (const name of ['one', 'two'])
      await gateway.deps.bus.call(gatewayRpc.createKey, person, { name, scope: 'read', monthly_quota: 10 });
    assert.equal(await gateway.deps.prisma.auditRecord.count({ where: { orgId, actorType: 'user' } }), 2);
    const counters = quotaKeys(ctx.redisPrefix, orgId, keyId, new Date());
    assert.equal(await gateway.deps.redis.get(counters.daily), null, 'no counter yet: the first call seeds it');

    assert.equal((await usage(key)).statusCode, 200);
    assert.equal(await gateway.deps.redis.get(counters.daily), '1');
    assert.equal(await gateway.deps.redis.get(counters.monthly), '1');
  });

  test("an OAuth grant's month (all its tokens) and the organization's day, keys' calls included, go on after the loss", async () => {
    const { key, orgId } = await createOrgWithKey(gateway, { quota: 100 });
    const { grantId, token, person } = await createGrantWithToken(gateway, orgId, { quota: 10 });
    const other = (await gateway.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId })).access_token;
    for (const credential of [token, token, other, other, key, key]) assert.equal((await mcpCall(credential)).statusCode, 200);
    await eventually(
      'the six calls in the audit log',
      async () => (await gateway.deps.prisma.auditRecord.count({ where: { orgId, actorType: { not: 'user' } } })) === 6,
    );
    await redis.restart();
    await eventually('the restarted Redis to be empty', async () => (await gateway.deps.redis.dbsize()) === 0);

    const next = await mcpCall(token);
    assert.equal(next.statusCode, 200);
    assert.equal(next.headers['x-ratelimit-remaining'], '5', "the grant's fifth call of the month, whichever token made the others");
    const counters = quotaKeys(ctx.redisPrefix, orgId, grantId, new Date());
    assert.equal(await gateway.deps.redis.get(counters.monthly), '5');
    assert.equal(await gateway.deps.redis.get(counters.daily), '7', "the keys' and the grant's calls, not the person's grant creation");
  });

  test('the gateway tells whether Redis writes an append-only file', async () => {
    assert.equal(await redisAppendOnly(gateway.deps.redis), false);
    await gateway.deps.redis.config('SET', 'appendonly', 'yes');
    assert.equal(await redisAppendOnly(gateway.deps.redis), true);
    await gateway.deps.redis.config('SET', 'appendonly', 'no');
  });
});
