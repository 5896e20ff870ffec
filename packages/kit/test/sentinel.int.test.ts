import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis, type RedisOptions } from 'ioredis';
import { assertBackingServices } from '../src/dependencies.js';
import { bullmqOptions, connectRedis } from '../src/redis.js';
import { eventually, hasProgram, type RedisSentinel, startRedisSentinel } from '../src/testing/index.js';

// A primary, its replica and a sentinel of the test's own, on ports from TEST_OWN_PORTS: REDIS_MODE=sentinel
// finds the primary through the sentinel, at the start and again after a failover.

const missingRedis = !((await hasProgram('redis-server')) && (await hasProgram('redis-cli')))
  ? 'redis-server or redis-cli is not installed; the Redis Sentinel test needs both'
  : false;

describe('through Redis Sentinel (REDIS_MODE=sentinel)', { skip: missingRedis }, () => {
  let sentinel: RedisSentinel;

  before(async () => {
    sentinel = await startRedisSentinel({ replicas: 1, sentinels: 1 });
  });
  after(async () => {
    await sentinel?.stop();
  });

  test('the client asks the sentinels for the primary, and after a failover writes to the promoted replica', async () => {
    await assertBackingServices({ redisUrl: sentinel.env.REDIS_URL, redisMode: 'sentinel', redisSentinelName: sentinel.name });
    const redis = await connectRedis(sentinel.env, { failFast: true });
    try {
      await redis.set('sentinel:key', 'before');
      const first = await sentinel.primary();
      const promoted = await sentinel.failover();
      assert.notEqual(promoted.port, first.port);
      // ioredis drops its connection to a primary that became a replica, asks the sentinels again, and reconnects.
      await eventually('a write through the promoted primary', async () => (await redis.set('sentinel:key', 'after')) === 'OK');
      assert.equal(await redis.get('sentinel:key'), 'after');
      const direct = new Redis(promoted.url);
      assert.equal(await direct.get('sentinel:key'), 'after', 'the write reached the promoted primary');
      direct.disconnect();
      // BullMQ makes its connections from these settings, as here: through the sentinels, to the primary.
      const settings = bullmqOptions({ ...sentinel.env, REDIS_PREFIX: 'test:' }).connection as RedisOptions;
      const queueConnection = new Redis(settings);
      assert.equal(await queueConnection.call('role').then((role) => (role as string[])[0]), 'master');
      queueConnection.disconnect();
    } finally {
      redis.disconnect();
    }
  });
});
