import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ApiError } from '../src/errors.js';
import { idempotent, runIdempotent } from '../src/idempotency.js';
import { connectRedis } from '../src/redis.js';
import { testServerUrls } from '../src/testing/index.js';

describe('Idempotency-Key', () => {
  let redis: Redis;
  const prefix = `test:${randomBytes(5).toString('hex')}:`;
  before(async () => {
    redis = await connectRedis(testServerUrls.redis);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const options = (key: string, fingerprint: unknown, extra: { pendingTtlSeconds?: number } = {}) => ({
    redis,
    prefix,
    orgId: 'org_1',
    operation: 'things.create',
    key,
    fingerprint,
    ...extra,
  });

  test('the same key and body run the work once and return the first response', async () => {
    let runs = 0;
    const work = async () => ({ status: 201, body: { id: `thing_${++runs}` } });
    const first = await idempotent(options('k1', { a: 1 }), work);
    const second = await idempotent(options('k1', { a: 1 }), work);
    assert.deepEqual(first, { status: 201, body: { id: 'thing_1' }, replayed: false });
    assert.deepEqual(second, { status: 201, body: { id: 'thing_1' }, replayed: true });
    assert.equal(runs, 1);
  });

  test('another body with the same key is idempotency_conflict; concurrent twins get conflict, not a second run', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const slow = () =>
      new Promise<{ status: number; body: { n: number } }>((resolve) => {
        runs++;
        release = () => resolve({ status: 201, body: { n: runs } });
      });
    const inFlight = idempotent(options('k2', { a: 1 }), slow);
    await assert.rejects(
      idempotent(options('k2', { a: 1 }), slow),
      (error: unknown) => error instanceof ApiError && error.code === 'conflict',
    );
    release();
    await inFlight;
    await assert.rejects(
      idempotent(options('k2', { a: 2 }), slow),
      (error: unknown) => error instanceof ApiError && error.code === 'idempotency_conflict',
    );
    assert.equal(runs, 1);
  });

  test('failed work frees the key for a retry', async () => {
    let runs = 0;
    await assert.rejects(idempotent(options('k3', {}), async () => Promise.reject(new Error(`boom ${++runs}`))));
    const retried = await idempotent(options('k3', {}), async () => ({ status: 201, body: { run: ++runs } }));
    assert.deepEqual(retried.body, { run: 2 });
  });

  test('a claim left by a process that died mid-work holds the key only for its short lease', async () => {
    await redis.set(`${prefix}idem:{org_1}:things.create:k4`, JSON.stringify({ state: 'pending', hash: 'x' }), 'EX', 1, 'NX');
    const ttl = await redis.ttl(`${prefix}idem:{org_1}:things.create:k4`);
    assert.ok(ttl <= 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const result = await idempotent(options('k4', {}), async () => ({ status: 201, body: { ok: true } }));
    assert.equal(result.replayed, false);
    // Once done, the record is kept for the full day.
    assert.ok((await redis.ttl(`${prefix}idem:{org_1}:things.create:k4`)) > 3_600);
  });

  test('an operation keeps one namespace whichever door it came through: the input without its key is the request', async () => {
    let runs = 0;
    const deps = { redis, env: { REDIS_PREFIX: prefix } };
    const work = async (input: { name: string }) => ({ id: `thing_${++runs}`, name: input.name });
    const rest = await runIdempotent(deps, 'org_1', 'things.add', { name: 'a', idempotency_key: 'door' }, work);
    const nats = await runIdempotent(deps, 'org_1', 'things.add', { idempotency_key: 'door', name: 'a' }, work);
    assert.deepEqual(rest, { status: 201, body: { id: 'thing_1', name: 'a' }, replayed: false });
    assert.deepEqual(nats, { ...rest, replayed: true });
    await assert.rejects(
      runIdempotent(deps, 'org_1', 'things.add', { name: 'b', idempotency_key: 'door' }, work),
      (error: unknown) => error instanceof ApiError && error.code === 'idempotency_conflict',
    );
    assert.equal(runs, 1);
  });
});
