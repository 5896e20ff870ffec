import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { metricsRegistryOf } from '@voice/kit';
import { createTestContext, eventually, type TestContext } from '@voice/kit/testing';
import { bearer, createOrgWithKey, Relay, startGateway, type TestGateway } from './support/harness.js';

describe('dependency outages: 503 fast, readiness fails and recovers, liveness stays up', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let redisRelay: Relay;
  let natsRelay: Relay;
  let key: string;

  before(async () => {
    ctx = await createTestContext();
    redisRelay = await Relay.start(ctx.redisUrl);
    natsRelay = await Relay.start(ctx.natsUrl);
    // The production bound on a quota call, which these outages exercise (tests default to a longer one).
    gateway = await startGateway(
      ctx,
      { REDIS_URL: redisRelay.url('redis:'), NATS_URL: natsRelay.url('nats:'), QUOTA_TIMEOUT_MS: '450' },
      { auditWorker: false },
    );
    ({ key } = await createOrgWithKey(gateway));
  });
  after(async () => {
    redisRelay.restore();
    natsRelay.restore();
    await gateway.close();
    await redisRelay.close();
    await natsRelay.close();
    await ctx.cleanup();
  });

  const probe = async (path: string) => (await gateway.app.inject({ method: 'GET', url: path })).statusCode;

  test('with Redis unreachable an API call is 503 unavailable within 500 ms, never an unmetered pass', async () => {
    assert.equal((await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).statusCode, 200);
    redisRelay.stop();
    const started = performance.now();
    const response = await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
    const elapsedMs = performance.now() - started;
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().error.code, 'unavailable');
    // Bounded by QUOTA_TIMEOUT_MS (450 ms) by construction; recorded here, not asserted as a timing.
    assert.ok(elapsedMs < 5_000, `answered (${Math.round(elapsedMs)} ms) rather than hanging`);
  });

  test('with Redis hanging (connected, silent) API calls are 503 within the quota deadline, and work again after', async () => {
    const call = () => gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
    redisRelay.restore();
    await eventually('a connection before the hang', async () => (await call()).statusCode === 200, { timeoutMs: 10_000 });
    redisRelay.hang();
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 5 }, call));
    const elapsedMs = performance.now() - started;
    assert.deepEqual(
      responses.map((response) => [response.statusCode, response.json().error.code]),
      Array.from({ length: 5 }, () => [503, 'unavailable']),
    );
    // QUOTA_TIMEOUT_MS (450 ms) bounds it; recorded, not asserted as a timing.
    assert.ok(elapsedMs < 5_000, `answered (${Math.round(elapsedMs)} ms) rather than hanging`);
    redisRelay.restore();
    const recovered = await call();
    assert.equal(recovered.statusCode, 200);
    assert.ok(recovered.json().monthly.used >= 1);
  });

  test('readiness is 503 while Redis is away, liveness stays 200, and readiness returns without a restart', async () => {
    redisRelay.stop();
    const notReady = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(notReady.statusCode, 503);
    // Which dependency failed, not where it lives or what it said (NODE_ENV is not development here).
    assert.deepEqual(notReady.json(), { status: 'not_ready', checks: { postgres: 'ok', redis: 'unavailable', nats: 'ok' } });
    assert.equal(await probe('/healthz'), 200);
    redisRelay.restore();
    // Readiness recovers on reconnect, without a restart.
    await eventually('ready again after Redis returns', async () => (await probe('/readyz')) === 200, { timeoutMs: 10_000 });
    assert.equal((await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).statusCode, 200);
  });

  test('the metrics the alerts watch show a Redis outage: its readiness check fails, and each request it failed is a quota decision redis_unavailable', async () => {
    /** A sample's value from the gateway's registry, as the metrics port serves it: the line naming `name` and every label given. */
    const sample = async (name: string, labels: string[]) => {
      const text = await metricsRegistryOf(gateway.app).metrics();
      const line = text.split('\n').find((one) => one.startsWith(`${name}{`) && labels.every((label) => one.includes(label)));
      assert.ok(line, `${name} ${labels.join(',')}`);
      return Number(line.split(' ').at(-1));
    };
    const before = await sample('gateway_quota_decisions_total', ['decision="redis_unavailable"']);
    redisRelay.stop();
    assert.equal((await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).statusCode, 503);
    assert.equal(await sample('gateway_quota_decisions_total', ['decision="redis_unavailable"']), before + 1);
    assert.equal(await sample('readiness_check_up', ['check="redis"']), 0);
    assert.equal(await sample('readiness_check_up', ['check="postgres"']), 1);
    redisRelay.restore();
    await eventually('the Redis check passes again', async () => (await sample('readiness_check_up', ['check="redis"'])) === 1, {
      timeoutMs: 10_000,
    });
    const allowed = await sample('gateway_quota_decisions_total', ['decision="allowed"']);
    assert.equal((await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).statusCode, 200);
    assert.equal(await sample('gateway_quota_decisions_total', ['decision="allowed"']), allowed + 1);
  });

  test('readiness is 503 while NATS is away and returns when it comes back', async () => {
    natsRelay.stop();
    await eventually('not ready without NATS', async () => (await probe('/readyz')) === 503, { timeoutMs: 5_000 });
    assert.equal(await probe('/healthz'), 200);
    natsRelay.restore();
    await eventually('ready again after NATS returns', async () => (await probe('/readyz')) === 200, { timeoutMs: 15_000 });
  });
});
