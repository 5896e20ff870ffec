import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '@voice/kit';
import { createTestContext, eventually, type TestContext } from '@voice/kit/testing';
import { applyAuditRetention } from '../src/audit/retention.js';
import { AuditWriter } from '../src/audit/writer.js';
import { bearer, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

const sampleCall = () => ({
  id: newId('audit'),
  key_id: newId('key'),
  method: 'GET',
  path: '/api/v1/phone/calls',
  status: 200,
  latency_ms: 17,
  request_id: newId('request'),
  client_address: '127.0.0.1',
  at: new Date().toISOString(),
});

describe('audit log: one record per API call, written off the request path', () => {
  let ctx: TestContext;
  let gateway: TestGateway;

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx, { AUDIT_FLUSH_MS: '50' });
  });
  after(async () => {
    await gateway.close();
    await ctx.cleanup();
  });
  const newWriter = (options: { batchSize: number; flushMs: number }) =>
    new AuditWriter({ prisma: gateway.deps.prisma, pool: gateway.deps.auditPool }, gateway.deps.logger, options);

  test("every call is recorded with method, path, status and key, never the key itself; lists show only the caller's org", async () => {
    const a = await createOrgWithKey(gateway);
    const b = await createOrgWithKey(gateway);
    await gateway.app.inject({ method: 'GET', url: '/api/v1/usage?x=1', headers: bearer(a.key) });
    await gateway.app.inject({ method: 'GET', url: '/api/v1/nothing', headers: bearer(a.key) });
    await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(b.key) });
    const list = async () =>
      (await gateway.app.inject({ method: 'GET', url: '/api/v1/audit-log?limit=100', headers: bearer(a.key) })).json() as {
        data: Array<{ path: string; status: number; key_id: string; method: string }>;
      };
    // The audit-log calls themselves are recorded too, so wait for at least the two calls made above.
    const page = await eventually('the two calls in the listed log', async () => {
      const body = await list();
      return body.data.filter((record) => record.path !== '/api/v1/audit-log').length >= 2 ? body : undefined;
    });
    const calls = page.data.filter((record) => record.path !== '/api/v1/audit-log');
    assert.deepEqual(calls.map((record) => [record.method, record.path, record.status, record.key_id]).sort(), [
      ['GET', '/api/v1/nothing', 404, a.keyId],
      ['GET', '/api/v1/usage', 200, a.keyId],
    ]);
    const filtered = (
      await gateway.app.inject({
        method: 'GET',
        url: '/api/v1/audit-log?status_class=4xx&actor_type=key&path_prefix=%2Fapi%2Fv1%2Fno',
        headers: bearer(a.key),
      })
    ).json() as { data: Array<{ path: string; status: number }> };
    assert.deepEqual(
      filtered.data.map((record) => [record.path, record.status]),
      [['/api/v1/nothing', 404]],
    );
    // The other organization's call is recorded too, only never listed to this one.
    const stored = await eventually("the other organization's record", async () => {
      const records = await gateway.deps.prisma.auditRecord.findMany();
      return records.some((record) => record.keyId === b.keyId) ? records : undefined;
    });
    assert.ok(stored.some((record) => record.keyId === b.keyId));
    assert.equal(JSON.stringify(stored).includes(a.key), false);
    assert.equal(JSON.stringify(stored).includes(b.key), false);
  });

  test('records are written in batches: many calls land within a few flushes, not one per flush', async () => {
    const { key, keyId } = await createOrgWithKey(gateway, { quota: 10_000 });
    await Promise.all(Array.from({ length: 120 }, () => gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) })));
    const count = await eventually(
      '120 records',
      async () => {
        const value = await gateway.deps.prisma.auditRecord.count({ where: { keyId } });
        return value >= 120 ? value : undefined;
      },
      { timeoutMs: 5_000 },
    );
    assert.equal(count, 120);
  });

  test('the writer stores each field as recorded, and a redelivered event adds nothing', async () => {
    const writer = newWriter({ batchSize: 10, flushMs: 10 });
    const orgId = newId('org');
    const calls = [
      { ...sampleCall(), client_address: '203.0.113.9', at: '2026-03-01T12:34:56.789Z' },
      { ...sampleCall(), method: 'DELETE', path: '/api/v1/leads/lead_x', status: 404, latency_ms: 0, client_address: null },
    ];
    const event = {
      id: newId('event'),
      type: 'api.called' as const,
      created_at: new Date().toISOString(),
      org_id: orgId,
      livemode: true,
      data: { calls },
    };
    await writer.add(event);
    await writer.add(event);
    const stored = await gateway.deps.prisma.auditRecord.findMany({ where: { orgId }, orderBy: { createdAt: 'desc' } });
    assert.deepEqual(
      stored.map((record) => ({
        id: record.id,
        key_id: record.keyId,
        method: record.method,
        path: record.path,
        status: record.status,
        latency_ms: record.latencyMs,
        request_id: record.requestId,
        client_address: record.clientAddress,
        at: record.createdAt.toISOString(),
      })),
      [...calls].sort((x, y) => y.at.localeCompare(x.at)),
    );
  });

  test("one insert holding several organizations' events files each record under its own event's organization", async () => {
    const writer = newWriter({ batchSize: 3, flushMs: 60_000 });
    const orgIds = [newId('org'), newId('org'), newId('org')];
    const sent = orgIds.map((orgId, index) => ({
      orgId,
      calls: Array.from({ length: index + 1 }, () => sampleCall()),
    }));
    // The third event fills the batch: the three land in one insert.
    await Promise.all(
      sent.map(({ orgId, calls }) =>
        writer.add({
          id: newId('event'),
          type: 'api.called',
          created_at: new Date().toISOString(),
          org_id: orgId,
          livemode: true,
          data: { calls },
        }),
      ),
    );
    const stored = await gateway.deps.prisma.auditRecord.findMany({ where: { orgId: { in: orgIds } } });
    const storedOrgOf = new Map(stored.map((record) => [record.id, record.orgId]));
    assert.equal(stored.length, 6);
    for (const { orgId, calls } of sent) for (const call of calls) assert.equal(storedOrgOf.get(call.id), orgId);
  });

  test("values COPY's text format would misread are stored as sent", async () => {
    const writer = newWriter({ batchSize: 1, flushMs: 60_000 });
    const orgId = newId('org');
    const calls = [
      { ...sampleCall(), path: '/api/v1/leads/a\tb\nc\rd\\e', client_address: null },
      { ...sampleCall(), path: '/api/v1/leads/\\N', client_address: '\\N' },
    ];
    await writer.add({
      id: newId('event'),
      type: 'api.called',
      created_at: new Date().toISOString(),
      org_id: orgId,
      livemode: true,
      data: { calls },
    });
    const stored = await gateway.deps.prisma.auditRecord.findMany({ where: { orgId } });
    const byId = new Map(stored.map((record) => [record.id, record]));
    for (const call of calls) {
      assert.equal(byId.get(call.id)?.path, call.path);
      assert.equal(byId.get(call.id)?.clientAddress, call.client_address);
    }
  });

  test('a batch mixing a redelivered event with new ones stores each record once', async () => {
    const writer = newWriter({ batchSize: 2, flushMs: 60_000 });
    const orgId = newId('org');
    const event = (calls: ReturnType<typeof sampleCall>[]) =>
      ({
        id: newId('event'),
        type: 'api.called',
        created_at: new Date().toISOString(),
        org_id: orgId,
        livemode: true,
        data: { calls },
      }) as const;
    const first = event([sampleCall(), sampleCall()]);
    const second = event([sampleCall()]);
    await Promise.all([writer.add(first), writer.add(second)]);
    // The first event again, now beside a new one: the COPY meets stored rows and the insert takes over.
    const third = event([sampleCall(), sampleCall()]);
    await Promise.all([writer.add(first), writer.add(third)]);
    const stored = await gateway.deps.prisma.auditRecord.findMany({ where: { orgId } });
    assert.deepEqual(
      stored.map((record) => record.id).sort(),
      [...first.data.calls, ...second.data.calls, ...third.data.calls].map((call) => call.id).sort(),
    );
  });

  test('an api.called event whose calls do not parse is logged and dropped by the bus, not retried forever; the next one lands', async (t) => {
    // The bus logs with the gateway's logger.
    const logged = t.mock.method(gateway.deps.logger, 'error');
    const orgId = newId('org');
    const event = (calls: unknown[]) => ({
      id: newId('event'),
      type: 'api.called' as const,
      created_at: new Date().toISOString(),
      org_id: orgId,
      data: { calls },
    });
    const malformed = event([{ ...sampleCall(), status: 'two hundred' }]);
    // Published as another (older or broken) gateway would: the type system would refuse it here.
    await gateway.deps.bus.publishEnvelope(malformed as unknown as Parameters<typeof gateway.deps.bus.publishEnvelope>[0]);
    const goodCall = sampleCall();
    await gateway.deps.bus.publish('api.called', orgId, { calls: [goodCall] });
    const stored = await eventually('the valid batch to be stored', async () => {
      const records = await gateway.deps.prisma.auditRecord.findMany({ where: { orgId } });
      return records.length > 0 ? records : undefined;
    });
    assert.deepEqual(
      stored.map((record) => record.id),
      [goodCall.id],
    );
    const dropped = logged.mock.calls.filter((call) => (call.arguments[0] as { event_id?: string }).event_id === malformed.id);
    assert.equal(dropped.length, 1);
  });

  test('a Postgres failure loses nothing: records wait in JetStream and land once inserts succeed', async () => {
    const { key, keyId } = await createOrgWithKey(gateway);
    // Make inserts fail, as they would with Postgres away, while requests keep flowing.
    await gateway.deps.prisma.$executeRawUnsafe('ALTER TABLE audit_records ADD CONSTRAINT audit_blocked CHECK (false) NOT VALID');
    for (let i = 0; i < 5; i++) await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(key) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await gateway.deps.prisma.auditRecord.count({ where: { keyId } }), 0);
    await gateway.deps.prisma.$executeRawUnsafe('ALTER TABLE audit_records DROP CONSTRAINT audit_blocked');
    const count = await eventually(
      'the five held-back records',
      async () => {
        const value = await gateway.deps.prisma.auditRecord.count({ where: { keyId, path: '/api/v1/usage' } });
        return value >= 5 ? value : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.equal(count, 5);
  });

  test('retention deletes by plan: 7 days Lite, 30 Starter, 1 year Pro, never Enterprise', async () => {
    const now = new Date('2026-11-25T00:00:00Z');
    const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
    const ages = [6, 8, 29, 31, 364, 366, 2_000];
    for (const plan of ['lite', 'starter', 'pro', 'enterprise'] as const) {
      const org = (await gateway.admin({ kind: 'org.create', name: plan, plan })) as { id: string };
      await gateway.deps.prisma.auditRecord.createMany({
        data: ages.map((age) => ({
          id: newId('audit'),
          orgId: org.id,
          keyId: 'key_x',
          method: 'GET',
          path: `/age/${age}`,
          status: 200,
          latencyMs: 1,
          requestId: newId('request'),
          createdAt: daysAgo(age),
        })),
      });
    }
    await applyAuditRetention(gateway.deps.prisma, now);
    const remaining = await gateway.deps.prisma.auditRecord.findMany({ where: { path: { startsWith: '/age/' } } });
    const orgs = await gateway.deps.prisma.organization.findMany({ where: { name: { in: ['lite', 'starter', 'pro', 'enterprise'] } } });
    const agesOf = (plan: string) => {
      const org = orgs.find((candidate) => candidate.name === plan);
      return remaining
        .filter((record) => record.orgId === org?.id)
        .map((record) => Number(record.path.split('/')[2]))
        .sort((x, y) => x - y);
    };
    assert.deepEqual(agesOf('lite'), [6]);
    assert.deepEqual(agesOf('starter'), [6, 8, 29]);
    assert.deepEqual(agesOf('pro'), [6, 8, 29, 31, 364]);
    assert.deepEqual(agesOf('enterprise'), ages);
  });
});
