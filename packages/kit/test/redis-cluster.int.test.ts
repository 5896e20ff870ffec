import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError } from '../src/errors.js';
import { idempotent } from '../src/idempotency.js';
import { FixedWindowLimiter } from '../src/rate-limit.js';
import { connectRedis } from '../src/redis.js';
import { eventually, hasProgram, type RedisCluster, startRedisCluster } from '../src/testing/index.js';

// A Redis Cluster of the test's own (the harness in src/testing/clusters.ts), on ports from TEST_OWN_PORTS:
// the kit's Redis client, Lua script and idempotency records on three primaries with a replica each, one
// of which is killed.

const missingRedis = !((await hasProgram('redis-server')) && (await hasProgram('redis-cli')))
  ? 'redis-server or redis-cli is not installed; the Redis Cluster tests need both'
  : false;

describe('on a Redis Cluster of three primaries, each with a replica', { skip: missingRedis }, () => {
  let cluster: RedisCluster;
  let redis: Redis;
  const prefix = `test:${randomBytes(4).toString('hex')}:`;

  before(async () => {
    cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
    // As a request path connects: REDIS_MODE=cluster from the environment, failing fast while a slot has no primary.
    redis = await connectRedis(cluster.env, { failFast: true });
  });
  after(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  test('keys of different hash tags spread over the primaries, and each is read back through the one client', async () => {
    const orgs = Array.from({ length: 24 }, (_, index) => `org_${index}`);
    await Promise.all(orgs.map((org) => redis.set(`${prefix}q:{${org}}:m`, org)));
    const holders = new Set<number>();
    for (const org of orgs) {
      assert.equal(await redis.get(`${prefix}q:{${org}}:m`), org);
      holders.add((await cluster.primaryFor(`${prefix}q:{${org}}:m`)).port);
    }
    assert.equal(holders.size, 3, 'every primary holds some of the keys');
  });

  test("the rate limiter's Lua script stays one atomic step: 40 concurrent takes against a limit of 7 allow exactly 7", async () => {
    const limiter = new FixedWindowLimiter(redis, { prefix, name: 'sign-in', limit: 7, windowSeconds: 60 });
    const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.take('203.0.113.7')));
    assert.equal(decisions.filter((decision) => decision.allowed).length, 7);
  });

  test('idempotency records: a retry replays the first response, another body conflicts, concurrent twins run once', async () => {
    let runs = 0;
    const options = (fingerprint: unknown) => ({
      redis,
      prefix,
      orgId: 'org_idem',
      operation: 'calls.create',
      key: 'key-1',
      fingerprint,
    });
    const work = async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: 201, body: { id: `call_${runs}` } };
    };
    const twins = await Promise.allSettled([idempotent(options({ to: '+1' }), work), idempotent(options({ to: '+1' }), work)]);
    assert.equal(runs, 1);
    assert.equal(twins.filter((result) => result.status === 'fulfilled').length, 1);
    const replay = await idempotent(options({ to: '+1' }), work);
    assert.deepEqual(replay, { status: 201, body: { id: 'call_1' }, replayed: true });
    await assert.rejects(idempotent(options({ to: '+2' }), work), (error: unknown) => {
      return error instanceof ApiError && error.code === 'idempotency_conflict';
    });
    assert.equal(runs, 1);
  });

  test('a killed primary: its replica is promoted, the key it held survives, and the client follows it', async () => {
    const key = `${prefix}idem:{org_failover}:op:k`;
    await redis.set(key, 'kept');
    const primary = await cluster.primaryFor(key);
    // Only what reached the replica survives the primary: wait for that copy, as WAIT does.
    const direct = new Redis(primary.url, { lazyConnect: true });
    await direct.connect();
    assert.equal(await direct.wait(1, 5_000), 1);
    direct.disconnect();

    await cluster.kill(primary);
    await cluster.waitUntilServing();
    const promoted = await cluster.primaryFor(key);
    assert.notEqual(promoted.port, primary.port);
    // The fail-fast client may refuse a command or two while it learns the new slot owner; then it serves.
    assert.equal(await eventually('the key through the promoted replica', () => redis.get(key)), 'kept');
    await eventually('a write through the promoted replica', async () => (await redis.set(key, 'written')) === 'OK');

    // The old primary comes back as a replica of the promoted one.
    await cluster.restart(primary);
    assert.ok(!(await cluster.primaries()).some((node) => node.port === primary.port));
    assert.equal(await redis.get(key), 'written');
  });
});
