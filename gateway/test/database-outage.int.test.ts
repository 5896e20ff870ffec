import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ApiError, type HttpApp, isDatabaseUnavailable, type Logger, loggerOptions, newId, parseEnv } from '@voice/kit';
import { createTestContext, type TestContext, testIdentity } from '@voice/kit/testing';
import { gatewayRpc, telephonyRpc } from '@voice/proto';
import { pino } from 'pino';
import { buildApp as buildTelephony } from '../../services/telephony/src/app.js';
import { connectDeps as connectTelephony, type TelephonyDeps } from '../../services/telephony/src/deps.js';
import { envSchema as telephonyEnvSchema } from '../../services/telephony/src/env.js';
import { buildApp } from '../src/app.js';
import { AuditWriter } from '../src/audit/writer.js';
import { connectDeps, type GatewayDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { adminOf, bearer, Relay } from './support/harness.js';

/** A logger whose JSON lines the test reads. */
function capturedLogger(name: string): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(loggerOptions(name, 'info'), { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** The rejection of a promise that must reject. */
async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

// Postgres going away, as the gateway and a service see it: a TCP relay in front of the shared server is cut
// (every open connection dropped, new ones closed at once), restored, then closed (the port refuses). Every
// answer meanwhile is 503 `unavailable` with Retry-After, over HTTP and over NATS, logged as a dependency
// failure, never as an unhandled error.
describe('Postgres unreachable: 503 unavailable with Retry-After, not 500', () => {
  let ctx: TestContext;
  let relay: Relay;
  let gatewayDeps: GatewayDeps;
  let gateway: HttpApp;
  let telephonyDeps: TelephonyDeps;
  let telephony: HttpApp;
  const gatewayLog = capturedLogger('gateway');
  const telephonyLog = capturedLogger('telephony');
  let key: string;
  let unusedKey: string;

  before(async () => {
    ctx = await createTestContext();
    relay = await Relay.start(ctx.databaseUrl);
    const viaRelay = new URL(ctx.databaseUrl);
    viaRelay.host = `127.0.0.1:${relay.port}`;
    const databaseUrl = viaRelay.toString();
    telephonyDeps = await connectTelephony(parseEnv(telephonyEnvSchema, { ...ctx.env, DATABASE_URL: databaseUrl }), telephonyLog.logger);
    telephony = await buildTelephony(telephonyDeps);
    await telephony.listen({ host: '127.0.0.1', port: 0 });
    const telephonyUrl = `http://127.0.0.1:${(telephony.server.address() as AddressInfo).port}`;
    gatewayDeps = await connectDeps(
      parseEnv(envSchema, { ...ctx.env, DATABASE_URL: databaseUrl, TELEPHONY_URL: telephonyUrl, WORKERS: 'outbox' }),
      {
        logger: gatewayLog.logger,
      },
    );
    gateway = await buildApp(gatewayDeps);
    await gateway.ready();
    const org = (await adminOf(gatewayDeps)({ kind: 'org.create', name: 'Acme', plan: 'pro' })) as {
      id: string;
    };
    const create = async () =>
      (
        (await adminOf(gatewayDeps)({
          kind: 'key.create',
          orgId: org.id,
          scope: 'read-write',
          monthlyQuota: 1_000,
        })) as { key: string }
      ).key;
    key = await create();
    unusedKey = await create();
  });
  after(async () => {
    await gateway.close();
    await gatewayDeps.close();
    await telephony.close();
    await telephonyDeps.close();
    await relay.close();
    await ctx.cleanup();
  });

  const get = (path: string, apiKey: string) => gateway.inject({ method: 'GET', url: path, headers: bearer(apiKey) });

  const assertUnavailable = (response: { statusCode: number; headers: Record<string, unknown>; json(): { error: { code: string } } }) => {
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().error.code, 'unavailable');
    assert.equal(response.headers['retry-after'], '1');
  };

  const assertLoggedAsDependencyFailure = (lines: Array<Record<string, unknown>>) => {
    const warnings = lines.filter((line) => line.msg === 'The database is unavailable; retry shortly.');
    assert.ok(warnings.length > 0, 'a warning names the dependency');
    assert.ok(
      warnings.every((line) => line.level === 40 && typeof line.reason === 'string' && !('err' in line)),
      'one short warning line, no stack',
    );
    assert.equal(lines.filter((line) => line.msg === 'unhandled error' || line.level === 50).length, 0, 'nothing logged as unhandled');
  };

  test('cut mid-run: a service route through the gateway, the gateway route and an uncached key are 503', async () => {
    assert.equal((await get('/api/v1/phone/calls', key)).statusCode, 200);
    assert.equal((await get('/api/v1/audit-log', key)).statusCode, 200);
    relay.stop();
    // The key is cached: the gateway passes the call on, and telephony cannot read its calls.
    assertUnavailable(await get('/api/v1/phone/calls', key));
    // The gateway's own route reading Postgres.
    assertUnavailable(await get('/api/v1/audit-log', key));
    // A key the gateway has not seen yet cannot be looked up.
    assertUnavailable(await get('/api/v1/usage', unusedKey));
    assertLoggedAsDependencyFailure(telephonyLog.lines);
    assertLoggedAsDependencyFailure(gatewayLog.lines);
  });

  test('over NATS too: the caller gets unavailable, and a 503 rebuilt from the wire carries Retry-After', async () => {
    const identity = testIdentity();
    // One call at a time: a second promise made up front could reject before anything awaits it.
    for (const work of [
      () => gatewayDeps.bus.call(telephonyRpc.listCalls, identity, { limit: 5 }),
      () => gatewayDeps.bus.call(gatewayRpc.listAuditLog, identity, { limit: 5 }),
    ]) {
      const error = await rejection(work());
      assert.ok(error instanceof ApiError);
      assert.deepEqual([error.code, error.status, error.headers['retry-after']], ['unavailable', 503, '1']);
    }
  });

  test('restored, the same requests are served again without a restart', async () => {
    relay.restore();
    assert.equal((await get('/api/v1/phone/calls', key)).statusCode, 200);
    assert.equal((await get('/api/v1/audit-log', key)).statusCode, 200);
  });

  test('a port that refuses connections is 503 too', async () => {
    await relay.close();
    assertUnavailable(await get('/api/v1/phone/calls', key));
    assertUnavailable(await get('/api/v1/audit-log', key));
    const error = await rejection(gatewayDeps.bus.call(telephonyRpc.listCalls, testIdentity(), { limit: 5 }));
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'unavailable');
  });

  test("the audit writer's COPY pool sees the outage as one: the batch is refused for redelivery, said in one short line", async () => {
    const writer = new AuditWriter({ prisma: gatewayDeps.prisma, pool: gatewayDeps.auditPool }, gatewayLog.logger, {
      batchSize: 1,
      flushMs: 10,
    });
    const identity = testIdentity();
    const event = {
      id: newId('event'),
      type: 'api.called' as const,
      created_at: new Date().toISOString(),
      org_id: identity.org_id,
      livemode: true,
      data: {
        calls: [
          {
            id: newId('audit'),
            key_id: identity.key_id,
            method: 'GET',
            path: '/api/v1/usage',
            status: 200,
            latency_ms: 1,
            request_id: newId('request'),
            client_address: null,
            at: new Date().toISOString(),
          },
        ],
      },
    };
    const error = await rejection(writer.add(event));
    assert.equal(isDatabaseUnavailable(error), true, String(error));
    const line = gatewayLog.lines.find((candidate) => candidate.msg === 'audit database unavailable; the events will be redelivered');
    assert.ok(line, 'logged as the database being away');
    assert.deepEqual([line.level, line.records, 'err' in line], [40, 1, false]);
  });
});
