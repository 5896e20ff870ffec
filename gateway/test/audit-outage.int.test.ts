// Audit records across NATS outages and a shutdown: the gateway runs against a nats-server this file starts
// on a port of its own (with its own JetStream store), stops and starts again, never the shared one.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { metricsRegistryOf, parseEnv } from '@voice/kit';
import { createTestContext, type OwnServer, startOwnNats, type TestContext } from '@voice/kit/testing';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { connectDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { bearer, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

/** Authenticated calls at a steady pace until stopped; every answer's request id is kept. */
function steadyLoad(gateway: TestGateway, key: string) {
  const requestIds: string[] = [];
  const statuses = new Map<number, number>();
  let running = true;
  const worker = async () => {
    while (running) {
      const response = await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      requestIds.push(String(response.headers['request-id']));
      await sleep(10);
    }
  };
  const workers = Array.from({ length: 3 }, worker);
  return {
    requestIds,
    statuses,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

async function auditedRequestIds(gateway: TestGateway, keyId: string, expected: number): Promise<string[]> {
  const read = async () =>
    (await gateway.deps.prisma.auditRecord.findMany({ where: { keyId }, select: { requestId: true } })).map((row) => row.requestId);
  // A bound on waiting, not on speed: after an outage the publisher's back-off is at most 5 s.
  const deadline = Date.now() + 60_000;
  let ids = await read();
  while (ids.length < expected && Date.now() < deadline) {
    await sleep(200);
    ids = await read();
  }
  return ids;
}

function assertOneRecordEach(requestIds: string[], audited: string[]): void {
  assert.equal(audited.length, requestIds.length, 'one audit record per authenticated response');
  assert.equal(new Set(audited).size, audited.length, 'no response recorded twice');
  assert.deepEqual([...audited].sort(), [...requestIds].sort());
}

describe('audit records are kept while NATS is away', () => {
  let ctx: TestContext;
  let nats: OwnServer;
  let gateway: TestGateway;

  before(async () => {
    ctx = await createTestContext();
    nats = await startOwnNats();
    gateway = await startGateway(ctx, { NATS_URL: nats.url, AUDIT_PUBLISH_MS: '100', AUDIT_FLUSH_MS: '100' }, { auditWorker: true });
  });
  after(async () => {
    await gateway?.close();
    await nats?.close();
    await ctx?.cleanup();
  });

  test('outages of 5 s and 20 s under steady load: every authenticated response has exactly one audit record', async () => {
    const { key, keyId } = await createOrgWithKey(gateway, { quota: 1_000_000 });
    const load = steadyLoad(gateway, key);
    for (const outageMs of [5_000, 20_000]) {
      await sleep(1_000);
      await nats.stop();
      await sleep(outageMs);
      await nats.start();
    }
    await sleep(1_000);
    await load.stop();
    assert.deepEqual([...load.statuses.keys()], [200], 'every call was answered (NATS is not on the request path)');
    assertOneRecordEach(load.requestIds, await auditedRequestIds(gateway, keyId, load.requestIds.length));
  });

  test('past the bound, new records are dropped, counted on /metrics and logged once; the held ones are published', async (t) => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write: (chunk, _encoding, callback) => {
          lines.push(String(chunk));
          callback();
        },
      }),
    );
    const env = parseEnv(envSchema, {
      ...ctx.env,
      NATS_URL: nats.url,
      AUDIT_PUBLISH_MS: '100',
      AUDIT_MAX_HELD_RECORDS: '20',
      WORKERS: 'outbox',
    });
    const deps = await connectDeps(env, { logger });
    const small = await buildApp(deps);
    t.after(async () => {
      await nats.start();
      await small.close();
      await deps.close();
    });
    const { key, keyId } = await createOrgWithKey(gateway, { quota: 1_000 });
    await nats.stop();
    const answered: string[] = [];
    for (let index = 0; index < 30; index++) {
      const response = await small.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
      assert.equal(response.statusCode, 200);
      answered.push(String(response.headers['request-id']));
    }
    // Read as Prometheus does, from the metrics port's registry (the public port serves no /metrics).
    const metrics = await metricsRegistryOf(small).metrics();
    assert.match(metrics, /^gateway_audit_records_dropped_total\{service="gateway"\} 10$/m);
    assert.match(metrics, /^gateway_audit_records_held\{service="gateway"\} 20$/m);
    assert.match(metrics, /^http_request_duration_seconds_count/m, 'the process metrics are still there');
    assert.equal(lines.filter((line) => line.includes('audit buffer full')).length, 1);
    await nats.start();
    // The first 20 answers were held and are published; the last 10 were the dropped ones.
    const audited = await auditedRequestIds(gateway, keyId, 20);
    assert.deepEqual([...audited].sort(), answered.slice(0, 20).sort());
  });

  test('records held at shutdown are published when NATS returns within the wait, before close resolves', async () => {
    const env = parseEnv(envSchema, {
      ...ctx.env,
      NATS_URL: nats.url,
      AUDIT_PUBLISH_MS: '100',
      AUDIT_SHUTDOWN_WAIT_MS: '30000',
      WORKERS: 'outbox',
    });
    const deps = await connectDeps(env);
    const closing = await buildApp(deps);
    const { key, keyId } = await createOrgWithKey(gateway, { quota: 1_000 });
    await nats.stop();
    const answered: string[] = [];
    for (let index = 0; index < 25; index++) {
      answered.push(String((await closing.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })).headers['request-id']));
    }
    // What SIGTERM runs: the app closes (publishing what it holds), then the connections.
    const closed = closing.close();
    await sleep(2_000);
    await nats.start();
    await closed;
    await deps.close();
    assertOneRecordEach(answered, await auditedRequestIds(gateway, keyId, answered.length));
  });
});
