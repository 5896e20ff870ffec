import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, eventually, hasProgram, type RedisCluster, startRedisCluster, type TestContext } from '@voice/kit/testing';
import { quotaKeys } from '../src/quota/quota.js';
import { bearer, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

// Two gateway replicas with REDIS_MODE=cluster on a Redis Cluster of three primaries of the test's own: the
// quota script's three keys share their organization's slot, so it stays one atomic call there.

const missing = !((await hasProgram('redis-server')) && (await hasProgram('redis-cli')))
  ? 'redis-server or redis-cli is not installed; the Redis Cluster tests need both'
  : false;

describe('quota on a Redis Cluster, across two gateway replicas', { skip: missing }, () => {
  let ctx: TestContext;
  let cluster: RedisCluster;
  let gateways: TestGateway[] = [];

  before(async () => {
    [ctx, cluster] = await Promise.all([createTestContext(), startRedisCluster({ primaries: 3 })]);
    // A bound on the quota call for a loaded test machine, not the production one: a 503 after a timeout
    // would leave the test unable to tell whether that request was counted.
    const env = { ...cluster.env, QUOTA_TIMEOUT_MS: '10000' };
    gateways = [await startGateway(ctx, env), await startGateway(ctx, env)];
  });
  after(async () => {
    await Promise.allSettled(gateways.map((gateway) => gateway.close()));
    await cluster?.stop();
    await ctx?.cleanup();
  });

  test('200 concurrent requests split over both replicas against a quota of 75: exactly 75 are served, 125 refused', async () => {
    const [first] = gateways as [TestGateway, TestGateway];
    const { key, orgId, keyId } = await createOrgWithKey(first, { quota: 75 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (gateways[index % 2] as TestGateway).app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) }),
      ),
    );
    const statuses: Record<number, number> = {};
    for (const response of responses) statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
    assert.deepEqual(statuses, { 200: 75, 429: 125 });
    assert.ok(
      responses.filter((response) => response.statusCode === 429).every((response) => response.json().error.code === 'quota_exceeded'),
    );
    assert.equal(await first.deps.redis.get(quotaKeys(ctx.redisPrefix, orgId, keyId, new Date()).monthly), '75');
    // The usage route reads both counters in one MGET: one slot, so the Cluster answers it.
    const usage = await first.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer((await createOrgWithKey(first)).key) });
    assert.equal(usage.statusCode, 200);
  });

  test("a counter the cluster does not have is seeded from Postgres's record, not started again at zero", async () => {
    const [first, second] = gateways as [TestGateway, TestGateway];
    const { key, orgId, keyId } = await createOrgWithKey(first, { quota: 10 });
    for (let index = 0; index < 6; index++) {
      assert.equal(
        (await (index % 2 ? second : first).app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).statusCode,
        200,
      );
    }
    // The audit writer records each served request in Postgres; once it has all six, the counter may go.
    const counter = quotaKeys(ctx.redisPrefix, orgId, keyId, new Date()).monthly;
    await eventually('six audit records', async () => (await first.deps.prisma.auditRecord.count({ where: { orgId } })) === 6);
    await first.deps.redis.del(counter);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        (gateways[index % 2] as TestGateway).app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) }),
      ),
    );
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 4);
    assert.equal(await first.deps.redis.get(counter), '10');
  });

  test('a revoked key is refused through the end marker the script reads in the same slot', async () => {
    const [first] = gateways as [TestGateway, TestGateway];
    const { key, keyId } = await createOrgWithKey(first);
    assert.equal((await first.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).statusCode, 200);
    await first.admin({ kind: 'key.revoke', keyId });
    const refused = await first.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, 'revoked');
  });
});
