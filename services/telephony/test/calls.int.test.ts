import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '@voice/kit';
import { eventually, testIdentity } from '@voice/kit/testing';
import type { Call, CallListItem, CallStats, EventEnvelope, Page } from '@voice/proto';
import type { SandboxStep } from '../src/carrier/sandbox.js';
import type { DialerQueues } from '../src/dialer/queues.js';
import { processSandboxStep } from '../src/dialer/workers.js';
import { collectEvents, type Harness, startHarness } from './support/harness.js';

let h: Harness;
const callEventTypes = ['call.queued', 'call.ringing', 'call.started', 'call.completed', 'call.failed', 'call.canceled'] as const;
let events: EventEnvelope<(typeof callEventTypes)[number]>[];
before(async () => {
  h = await startHarness();
  events = await collectEvents(h.deps.bus, 'test-calls', callEventTypes);
});
after(() => h.close());

const org = testIdentity();
const phone = (n: number) => `+1415555${String(n).padStart(4, '0')}`;

/** Inserts calls straight into the database, so lists can be tested over exact, known rows. */
async function seedCalls(
  orgId: string,
  rows: Array<
    Partial<{
      direction: 'inbound' | 'outbound';
      outcome: 'qualified_lead' | 'voicemail' | null;
      status: 'completed' | 'queued' | 'failed';
      leadId: string;
      createdAt: Date;
    }>
  >,
) {
  const data = rows.map((row, index) => ({
    id: newId('call'),
    orgId,
    direction: row.direction ?? 'outbound',
    fromNumber: '+15005550006',
    toNumber: phone(index),
    status: row.status ?? 'completed',
    outcome: row.outcome ?? null,
    leadId: row.leadId ?? null,
    source: 'api' as const,
    createdAt: row.createdAt ?? new Date(),
  }));
  await h.deps.prisma.call.createMany({ data });
  return data;
}

async function listAll(identity = org, query = '', limit = 7) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/api/v1/phone/calls?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await h.request(identity, 'GET', url);
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json() as Page<CallListItem>;
    ids.push(...page.data.map((call) => call.id));
    cursor = page.next_cursor;
    assert.equal(page.has_more, cursor !== null);
    pages += 1;
  } while (cursor);
  return { ids, pages };
}

describe('listing calls', () => {
  const identity = testIdentity();
  let seeded: Array<{ id: string; direction: string; outcome: string | null; leadId: string | null; createdAt: Date }>;
  const lead = newId('lead');
  before(async () => {
    const base = Date.now() - 60 * 60 * 1000;
    // Some share a timestamp, so the id tie-break in the keyset is exercised.
    seeded = await seedCalls(
      identity.org_id,
      Array.from({ length: 30 }, (_, i) => ({
        direction: i % 3 === 0 ? ('inbound' as const) : ('outbound' as const),
        outcome: i % 4 === 0 ? ('qualified_lead' as const) : i % 4 === 1 ? ('voicemail' as const) : null,
        leadId: i % 5 === 0 ? lead : newId('lead'),
        createdAt: new Date(base + Math.floor(i / 3) * 1000),
      })),
    );
  });

  test('pages newest first with no duplicates or gaps while new calls arrive', async () => {
    const expected = [...seeded].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((c) => c.id);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/api/v1/phone/calls?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = (await h.request(identity, 'GET', url)).json() as Page<CallListItem>;
      ids.push(...page.data.map((call) => call.id));
      cursor = page.next_cursor;
      // A call arrives between pages; it is newer than every cursor, so it must not appear later on.
      if (cursor) await seedCalls(identity.org_id, [{}]);
    } while (cursor);
    assert.deepEqual(ids, expected);
  });

  test('filters by direction, outcome, status, lead and period', async () => {
    const check = async (query: string, predicate: (call: (typeof seeded)[number]) => boolean) => {
      const { ids } = await listAll(identity, query, 5);
      const want = seeded.filter(predicate).map((call) => call.id);
      assert.deepEqual(new Set(ids), new Set(want), query);
      assert.equal(ids.length, want.length, query);
    };
    await check('&direction=inbound', (call) => call.direction === 'inbound');
    await check('&outcome=qualified_lead', (call) => call.outcome === 'qualified_lead');
    await check('&direction=outbound&outcome=voicemail', (call) => call.direction === 'outbound' && call.outcome === 'voicemail');
    await check(`&lead_id=${lead}`, (call) => call.leadId === lead);
    const middle = seeded[15]?.createdAt as Date;
    await check(`&created_before=${encodeURIComponent(middle.toISOString())}`, (call) => call.createdAt < middle);
    const statusPage = (await h.request(identity, 'GET', '/api/v1/phone/calls?status=queued')).json() as Page<CallListItem>;
    assert.ok(statusPage.data.every((call) => call.status === 'queued'));
  });

  test('list items leave out transcript and recording', async () => {
    const page = (await h.request(identity, 'GET', '/api/v1/phone/calls?limit=1')).json() as Page<Record<string, unknown>>;
    assert.equal(page.data.length, 1);
    assert.ok(!('transcript' in (page.data[0] ?? {})));
    assert.ok(!('recording_url' in (page.data[0] ?? {})));
  });

  test('a cursor made for other filters, or garbage, is 400 invalid_cursor', async () => {
    const first = (await h.request(identity, 'GET', '/api/v1/phone/calls?limit=2&direction=inbound')).json() as Page<CallListItem>;
    assert.ok(first.next_cursor);
    const other = await h.request(identity, 'GET', `/api/v1/phone/calls?limit=2&direction=outbound&cursor=${first.next_cursor}`);
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().error.code, 'invalid_cursor');
    const garbage = await h.request(identity, 'GET', '/api/v1/phone/calls?cursor=not-a-cursor');
    assert.equal(garbage.statusCode, 400);
    assert.equal(garbage.json().error.code, 'invalid_cursor');
  });

  test('stats count by outcome, direction and status over the period', async () => {
    const response = await h.request(identity, 'GET', '/api/v1/phone/calls/stats');
    assert.equal(response.statusCode, 200, response.body);
    const stats = response.json() as CallStats;
    const inPeriod = await h.deps.prisma.call.findMany({ where: { orgId: identity.org_id } });
    assert.equal(stats.total, inPeriod.length);
    assert.equal(stats.by_direction.inbound, inPeriod.filter((c) => c.direction === 'inbound').length);
    assert.equal(stats.by_outcome.qualified_lead, inPeriod.filter((c) => c.outcome === 'qualified_lead').length);
    assert.equal(stats.by_outcome.none, inPeriod.filter((c) => c.outcome === null).length);
    const empty = (await h.request(identity, 'GET', '/api/v1/phone/calls/stats?created_before=2020-01-01T00:00:00Z')).json() as CallStats;
    assert.equal(empty.total, 0);
  });
});

describe('queueing calls', () => {
  test('queues a call, and the sandbox plays it out to completed with an outcome, events in order', async () => {
    const lead = await h.lead(org);
    const response = await h.request(org, 'POST', '/api/v1/phone/calls', {
      to: phone(1),
      lead_id: lead,
      metadata: { campaign: 'spring' },
    });
    assert.equal(response.statusCode, 201, response.body);
    const queued = response.json() as Call;
    assert.equal(queued.lead_id, lead);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.direction, 'outbound');
    assert.equal(queued.source, 'api');
    const done = await eventually(
      'the call to finish',
      async () => {
        const call = (await h.request(org, 'GET', `/api/v1/phone/calls/${queued.id}`)).json() as Call;
        return ['completed', 'busy', 'no_answer', 'failed'].includes(call.status) ? call : undefined;
      },
      { timeoutMs: 15_000 },
    );
    const mine = await eventually('call.completed', () => {
      const list = events.filter((event) => event.data.call_id === queued.id);
      return list.some((event) => event.type === 'call.completed' || event.type === 'call.failed') ? list : undefined;
    });
    const types = mine.map((event) => event.type);
    if (done.status === 'completed') {
      assert.ok(done.outcome, 'a completed sandbox call has an outcome');
      assert.ok(done.transcript?.includes('sandbox'));
      assert.ok((done.duration_seconds ?? 0) > 0);
      assert.deepEqual(types, ['call.queued', 'call.ringing', 'call.started', 'call.completed']);
      const completed = mine.at(-1);
      for (const field of ['call_id', 'lead_id', 'outcome', 'status', 'direction', 'to', 'from'])
        assert.ok(field in (completed?.data ?? {}), field);
      assert.equal(completed?.data.outcome, done.outcome);
    } else {
      assert.deepEqual(types, ['call.queued', 'call.ringing', 'call.failed']);
    }
  });

  test('the sandbox honours a forced outcome and status', async () => {
    const qualified = (
      await h.request(org, 'POST', '/api/v1/phone/calls', {
        to: phone(2),
        metadata: { sandbox_outcome: 'qualified_lead', sandbox_status: 'completed' },
      })
    ).json() as Call;
    const busy = (
      await h.request(org, 'POST', '/api/v1/phone/calls', { to: phone(3), metadata: { sandbox_status: 'busy' } })
    ).json() as Call;
    const finished = async (id: string) =>
      eventually(
        `call ${id} to end`,
        async () => {
          const call = (await h.request(org, 'GET', `/api/v1/phone/calls/${id}`)).json() as Call;
          return call.ended_at ? call : undefined;
        },
        { timeoutMs: 15_000 },
      );
    const [a, b] = await Promise.all([finished(qualified.id), finished(busy.id)]);
    assert.equal(a.status, 'completed');
    assert.equal(a.outcome, 'qualified_lead');
    assert.equal(b.status, 'busy');
    assert.equal(b.outcome, null);
    const completedEvent = await eventually('call.completed', () =>
      events.find((event) => event.type === 'call.completed' && event.data.call_id === a.id),
    );
    assert.equal(completedEvent.data.outcome, 'qualified_lead');
  });

  test('the same Idempotency-Key twice makes one call; with another body it is 409', async () => {
    const identity = testIdentity();
    const key = `key-${newId('request')}`;
    const body = { to: phone(4) };
    const first = await h.request(identity, 'POST', '/api/v1/phone/calls', body, { 'idempotency-key': key });
    const second = await h.request(identity, 'POST', '/api/v1/phone/calls', body, { 'idempotency-key': key });
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 201);
    assert.equal(second.json().id, first.json().id);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: identity.org_id } }), 1);
    const conflict = await h.request(identity, 'POST', '/api/v1/phone/calls', { to: phone(5) }, { 'idempotency-key': key });
    assert.equal(conflict.statusCode, 409);
    assert.equal(conflict.json().error.code, 'idempotency_conflict');
  });

  test('concurrent requests with one Idempotency-Key still make one call', async () => {
    const identity = testIdentity();
    const headers = { 'idempotency-key': newId('request') };
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => h.request(identity, 'POST', '/api/v1/phone/calls', { to: phone(10) }, headers)),
    );
    const created = responses.filter((response) => response.statusCode === 201);
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((response) => response.json().id)).size, 1);
    // The others were told the first is still in progress, to retry.
    for (const response of responses.filter((r) => r.statusCode !== 201)) assert.equal(response.json().error.code, 'conflict');
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: identity.org_id } }), 1);
  });

  test('a do-not-call number is refused with 422 dnc_blocked and nothing is queued', async () => {
    const identity = testIdentity();
    const added = await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: phone(6), channel: 'voice', reason: 'asked' });
    assert.equal(added.statusCode, 201, added.body);
    const refused = await h.request(identity, 'POST', '/api/v1/phone/calls', { to: phone(6) });
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.code, 'dnc_blocked');
    assert.equal(refused.json().error.param, 'to');
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: identity.org_id } }), 0);
    // An SMS-only listing does not block calls.
    await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: phone(7), channel: 'sms' });
    assert.equal((await h.request(identity, 'POST', '/api/v1/phone/calls', { to: phone(7) })).statusCode, 201);
  });

  test('cancel works only while queued', async () => {
    const identity = testIdentity();
    // No dialer job exists for a call inserted directly, so it stays queued until canceled.
    const [row] = await seedCalls(identity.org_id, [{ status: 'queued' }]);
    const id = row?.id as string;
    const canceled = await h.request(identity, 'POST', `/api/v1/phone/calls/${id}/cancel`);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled');
    const again = await h.request(identity, 'POST', `/api/v1/phone/calls/${id}/cancel`);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'conflict');
    await eventually('call.canceled', () => events.find((event) => event.type === 'call.canceled' && event.data.call_id === id));
  });

  test('a ringing call can be canceled: the sandbox carrier never answers it; an answered or ended call is a conflict', async () => {
    const identity = testIdentity();
    // Rows as the dialer leaves them, with no sandbox step scheduled: the test runs the next step itself.
    const rows = await seedCalls(identity.org_id, [{ status: 'queued' }, { status: 'queued' }, { status: 'completed' }]);
    const [ringing, answered, ended] = rows.map((row) => row.id) as [string, string, string];
    await h.deps.prisma.call.update({ where: { id: ringing }, data: { status: 'ringing', carrierCallId: 'SBringing' } });
    await h.deps.prisma.call.update({ where: { id: answered }, data: { status: 'in_progress', carrierCallId: 'SBanswered' } });

    const canceled = await h.request(identity, 'POST', `/api/v1/phone/calls/${ringing}/cancel`);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled');
    assert.equal(canceled.json().end_reason, 'canceled');
    await eventually('call.canceled', () => events.find((event) => event.type === 'call.canceled' && event.data.call_id === ringing));
    // The simulation's next step, the answer, finds the call final: it neither answers nor schedules a hang-up.
    const scheduled: SandboxStep[] = [];
    const queues = { scheduleSandbox: async (step: SandboxStep) => void scheduled.push(step) } as unknown as DialerQueues;
    await processSandboxStep(h.deps, queues, { kind: 'call', callId: ringing, orgId: identity.org_id, step: 'answer' });
    assert.equal((await h.deps.prisma.call.findUniqueOrThrow({ where: { id: ringing } })).status, 'canceled');
    assert.deepEqual(scheduled, []);

    for (const [id, status] of [
      [answered, 'in progress'],
      [ended, 'completed'],
    ] as const) {
      const refused = await h.request(identity, 'POST', `/api/v1/phone/calls/${id}/cancel`);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().error.message, `Only queued or ringing calls can be canceled; this call is ${status}.`);
    }
    assert.equal((await h.deps.prisma.call.findUniqueOrThrow({ where: { id: answered } })).status, 'in_progress');
    assert.equal(events.filter((event) => event.data.call_id === ringing && event.type === 'call.started').length, 0);
  });

  test('a read key cannot queue', async () => {
    const response = await h.request(testIdentity({ scope: 'read' }), 'POST', '/api/v1/phone/calls', { to: phone(8) });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().error.code, 'forbidden_scope');
  });
});

describe('isolation and bad input', () => {
  test("another organization's call is 404 for get and cancel, and absent from its lists", async () => {
    const owner = testIdentity();
    const stranger = testIdentity();
    const [row] = await seedCalls(owner.org_id, [{ status: 'queued' }]);
    const id = row?.id as string;
    for (const [method, url] of [
      ['GET', `/api/v1/phone/calls/${id}`],
      ['POST', `/api/v1/phone/calls/${id}/cancel`],
    ] as const) {
      const response = await h.request(stranger, method, url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().error.code, 'not_found');
    }
    const list = (await h.request(stranger, 'GET', '/api/v1/phone/calls')).json() as Page<CallListItem>;
    assert.equal(list.data.length, 0);
    assert.equal((await h.request(owner, 'GET', `/api/v1/phone/calls/${id}`)).statusCode, 200);
  });

  test("a call or SMS naming another organization's lead or workspace, or an unknown one, is 404 on that field and writes nothing", async () => {
    const owner = testIdentity();
    const stranger = testIdentity();
    const theirs = { lead_id: await h.lead(owner), workspace_id: await h.workspace(owner) };
    const unknown = { lead_id: newId('lead'), workspace_id: newId('workspace') };
    for (const [url, body] of [
      ['/api/v1/phone/calls', { to: phone(20) }],
      ['/api/v1/phone/sms', { to: phone(20), body: 'Hello' }],
    ] as const) {
      for (const param of ['lead_id', 'workspace_id'] as const) {
        for (const id of [theirs[param], unknown[param]]) {
          const response = await h.request(stranger, 'POST', url, { ...body, [param]: id });
          assert.equal(response.statusCode, 404, `${url} ${param} ${response.body}`);
          assert.deepEqual(
            { code: response.json().error.code, param: response.json().error.param },
            { code: 'not_found', param },
            `${url} ${param}`,
          );
        }
      }
    }
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: stranger.org_id } }), 0);
    assert.equal(await h.deps.prisma.sms.count({ where: { orgId: stranger.org_id } }), 0);
    assert.equal(await h.deps.prisma.call.count({ where: { leadId: theirs.lead_id } }), 0);
    assert.equal(await h.deps.prisma.call.count({ where: { workspaceId: theirs.workspace_id } }), 0);
    // The same lead and workspace work for their own organization.
    const own = await h.request(owner, 'POST', '/api/v1/phone/calls', { to: phone(20), ...theirs });
    assert.equal(own.statusCode, 201, own.body);
    const ownSms = await h.request(owner, 'POST', '/api/v1/phone/sms', { to: phone(20), body: 'Hello', ...theirs });
    assert.equal(ownSms.statusCode, 201, ownSms.body);
    for (const record of [own.json(), ownSms.json()]) {
      assert.deepEqual({ lead_id: record.lead_id, workspace_id: record.workspace_id }, theirs);
    }
  });

  test('bad input is a 4xx envelope, never a 500', async () => {
    const cases: Array<[string, () => ReturnType<Harness['request']>, number, string]> = [
      ['bad phone', () => h.request(org, 'POST', '/api/v1/phone/calls', { to: '555-1234' }), 400, 'invalid_request'],
      ['wrong type', () => h.request(org, 'POST', '/api/v1/phone/calls', { to: 14155550123 }), 400, 'invalid_request'],
      ['unknown field', () => h.request(org, 'POST', '/api/v1/phone/calls', { to: phone(9), priority: 'high' }), 400, 'invalid_request'],
      ['unknown id', () => h.request(org, 'GET', `/api/v1/phone/calls/${newId('call')}`), 404, 'not_found'],
      ['malformed id', () => h.request(org, 'GET', '/api/v1/phone/calls/sms_12345678'), 400, 'invalid_request'],
      ['limit too large', () => h.request(org, 'GET', '/api/v1/phone/calls?limit=1000'), 400, 'invalid_request'],
      ['bad direction', () => h.request(org, 'GET', '/api/v1/phone/calls?direction=sideways'), 400, 'invalid_request'],
      ['bad date', () => h.request(org, 'GET', '/api/v1/phone/calls?created_after=yesterday'), 400, 'invalid_request'],
      [
        'oversize body',
        () => h.request(org, 'POST', '/api/v1/phone/calls', { to: phone(9), metadata: { note: 'x'.repeat(100_000) } }),
        413,
        'payload_too_large',
      ],
      [
        'bad idempotency key',
        () => h.request(org, 'POST', '/api/v1/phone/calls', { to: phone(9) }, { 'idempotency-key': 'x'.repeat(300) }),
        400,
        'invalid_request',
      ],
    ];
    for (const [name, send, status, code] of cases) {
      const response = await send();
      assert.equal(response.statusCode, status, `${name}: ${response.body}`);
      assert.equal(response.json().error.code, code, name);
    }
    const malformed = await h.app.inject({
      method: 'POST',
      url: '/api/v1/phone/calls',
      headers: {
        ...(await import('@voice/kit/testing')).gatewayHeaders(org, 'POST', '/api/v1/phone/calls'),
        'content-type': 'application/json',
      },
      payload: '{"to": "+1415',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error.code, 'invalid_request');
  });

  test('requests without the gateway signature are 401', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/api/v1/phone/calls' });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().error.code, 'unauthenticated');
  });
});

test('the OpenAPI document describes every public route, and no hook', async () => {
  const response = await h.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200, response.body);
  const document = response.json() as { paths: Record<string, Record<string, unknown>> };
  const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
  for (const route of [
    'GET /api/v1/phone/calls',
    'POST /api/v1/phone/calls',
    'GET /api/v1/phone/calls/stats',
    'GET /api/v1/phone/calls/{id}',
    'POST /api/v1/phone/calls/{id}/cancel',
    'GET /api/v1/phone/sms',
    'POST /api/v1/phone/sms',
    'GET /api/v1/phone/sms/{id}',
    'GET /api/v1/phone/dnc',
    'POST /api/v1/phone/dnc',
    'GET /api/v1/phone/dnc/check',
    'DELETE /api/v1/phone/dnc/{id}',
  ]) {
    assert.ok(routes.includes(route), route);
  }
  assert.ok(routes.every((route) => !route.includes('/api/hooks/')));
});
