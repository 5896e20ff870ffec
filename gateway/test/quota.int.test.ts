import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import { quotaKeys } from '../src/quota/quota.js';
import { bearer, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

describe('quota: monthly per key, daily per organization, one Lua call', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  // The injected clock: tests move it across month and day boundaries.
  let now = new Date('2026-03-31T23:59:50Z');

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx, {}, { now: () => now });
  });
  after(async () => {
    await gateway.close();
    await ctx.cleanup();
  });

  const usage = (key: string) => gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });

  test('the monthly quota allows exactly N requests, then 429 quota_exceeded with Retry-After; refused requests count nothing', async () => {
    now = new Date('2026-03-31T23:59:50Z');
    const { key, orgId, keyId } = await createOrgWithKey(gateway, { quota: 3 });
    for (let i = 1; i <= 3; i++) {
      const response = await usage(key);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-ratelimit-remaining'], String(3 - i));
    }
    for (let i = 0; i < 3; i++) {
      const refused = await usage(key);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error.code, 'quota_exceeded');
      assert.equal(refused.headers['retry-after'], '10');
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    }
    // The counter still reads 3: refusals consumed nothing.
    assert.equal(await gateway.deps.redis.get(quotaKeys(ctx.redisPrefix, orgId, keyId, now).monthly), '3');
  });

  test('the monthly counter resets at 00:00 UTC on the 1st', async () => {
    now = new Date('2026-04-30T23:59:59Z');
    const { key } = await createOrgWithKey(gateway, { quota: 1 });
    assert.equal((await usage(key)).statusCode, 200);
    assert.equal((await usage(key)).statusCode, 429);
    now = new Date('2026-05-01T00:00:00Z');
    const response = await usage(key);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-ratelimit-remaining'], '0');
    assert.equal(response.headers['x-ratelimit-reset'], String(Date.UTC(2026, 5, 1) / 1000));
  });

  test("the organization's daily plan limit is 429 rate_limited until 00:00 UTC, shared by its keys", async () => {
    now = new Date('2026-06-10T12:00:00Z');
    const { orgId, key } = await createOrgWithKey(gateway, { plan: 'lite', scope: 'read', quota: 1_000_000 });
    // Bring the organization to one request below Lite's 10,000 a day without sending 9,999 requests.
    const keys = quotaKeys(ctx.redisPrefix, orgId, 'unused', now);
    await gateway.deps.redis.set(keys.daily, 9_999);
    assert.equal((await usage(key)).statusCode, 200);
    const refused = await usage(key);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'rate_limited');
    assert.equal(refused.headers['retry-after'], String(12 * 3600));
    assert.equal(await gateway.deps.redis.get(keys.daily), '10000');
    now = new Date('2026-06-11T00:00:00Z');
    assert.equal((await usage(key)).statusCode, 200);
  });

  test('rotation keeps the monthly count: a new key is not a new quota', async () => {
    now = new Date('2026-07-01T10:00:00Z');
    const { key, keyId } = await createOrgWithKey(gateway, { quota: 2 });
    assert.equal((await usage(key)).statusCode, 200);
    const rotated = (await gateway.admin({ kind: 'key.rotate', keyId, graceSeconds: 60 })) as { key: string };
    assert.equal((await usage(rotated.key)).statusCode, 200);
    assert.equal((await usage(rotated.key)).json().error.code, 'quota_exceeded');
  });

  test('usage reports the monthly and daily counts and the plan limits', async () => {
    now = new Date('2026-08-15T08:00:00Z');
    const { key } = await createOrgWithKey(gateway, { plan: 'starter', quota: 500 });
    await usage(key);
    const body = (await usage(key)).json();
    assert.equal(body.plan, 'starter');
    assert.deepEqual(body.monthly, { used: 2, quota: 500, resets_at: '2026-09-01T00:00:00.000Z' });
    assert.deepEqual(body.daily, { used: 2, limit: 100_000, resets_at: '2026-08-16T00:00:00.000Z' });
    assert.deepEqual(body.limits, { max_keys: 5, audit_retention_days: 30, webhooks: true, read_write_keys: true });
  });
});
