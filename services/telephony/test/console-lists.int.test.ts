// What the console's pages read: calls, messages and do-not-call lists with their searches, paged both
// ways (Older and Newer), and a call's page with its timeline and transcript turns.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError, type Bus, newId } from '@voice/kit';
import { eventually, testIdentity } from '@voice/kit/testing';
import { type Call, type Identity, type TwoWayPage, telephonyRpc } from '@voice/proto';
import { connectCaller, type Harness, startHarness } from './support/harness.js';

let h: Harness;
let caller: Bus;
before(async () => {
  h = await startHarness();
  // The console calls telephony over NATS, like this connection.
  caller = await connectCaller(h, 'test-console');
});
after(async () => {
  await caller.drain();
  await h.close();
});

const isApiError = (code: string, param?: string) => (error: unknown) =>
  error instanceof ApiError && error.code === code && (param === undefined || error.param === param);

type Listed = { id: string; created_at: string };

/**
 * Walks a list Older to its end, then Newer back to the top from the last page, and checks both walks
 * see the same pages (Newer pages are the Older ones in reverse order), with no prev_cursor on the top.
 */
async function walkBothWays<T extends Listed>(list: (cursor: string | undefined) => Promise<TwoWayPage<T>>): Promise<string[]> {
  const older: string[][] = [];
  let page = await list(undefined);
  assert.equal(page.prev_cursor, null, 'the first page has nothing newer');
  older.push(page.data.map((item) => item.id));
  let last = page;
  while (page.next_cursor) {
    assert.equal(page.has_more, true);
    page = await list(page.next_cursor);
    older.push(page.data.map((item) => item.id));
    last = page;
  }
  assert.equal(last.has_more, false);
  const newer: string[][] = [last.data.map((item) => item.id)];
  page = last;
  while (page.prev_cursor) {
    page = await list(page.prev_cursor);
    assert.ok(page.next_cursor, 'a Newer page always has an Older one');
    newer.unshift(page.data.map((item) => item.id));
  }
  assert.deepEqual(newer, older, 'Newer pages retrace the Older ones');
  const ids = older.flat();
  assert.equal(new Set(ids).size, ids.length, 'no item twice');
  return ids;
}

const newestFirst = (rows: Array<{ id: string; createdAt: Date }>) =>
  [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((row) => row.id);

describe('the calls list', () => {
  const identity = testIdentity();
  const stranger = testIdentity();
  const lead = newId('lead');
  const base = Date.now() - 6 * 60 * 60 * 1000;
  const outcomes = ['qualified_lead', 'voicemail', null] as const;
  const statuses = ['completed', 'failed', 'queued', 'no_answer'] as const;
  let seeded: Array<{
    id: string;
    direction: 'inbound' | 'outbound';
    status: (typeof statuses)[number];
    outcome: (typeof outcomes)[number];
    leadId: string | null;
    fromNumber: string;
    toNumber: string;
    createdAt: Date;
  }>;
  before(async () => {
    seeded = Array.from({ length: 45 }, (_, i) => {
      const inbound = i % 3 === 0;
      const contact = `+1212555${String(1000 + (i % 9)).padStart(4, '0')}`;
      return {
        id: newId('call'),
        direction: inbound ? ('inbound' as const) : ('outbound' as const),
        status: statuses[i % 4] ?? 'completed',
        outcome: outcomes[i % 3] ?? null,
        leadId: i % 5 === 0 ? lead : null,
        fromNumber: inbound ? contact : '+15005550006',
        toNumber: inbound ? '+15005550006' : contact,
        // Pairs share a timestamp, so the id tie-break is crossed in both directions.
        createdAt: new Date(base + Math.floor(i / 2) * 60_000),
      };
    });
    await h.deps.prisma.call.createMany({ data: seeded.map((call) => ({ ...call, orgId: identity.org_id, source: 'api' as const })) });
    // Another organization with the same numbers: never in the first's results.
    await h.deps.prisma.call.createMany({
      data: seeded.slice(0, 10).map((call) => ({ ...call, id: newId('call'), orgId: stranger.org_id, source: 'api' as const })),
    });
  });

  const listOver = (query: Record<string, unknown>) => (cursor: string | undefined) =>
    caller.call(telephonyRpc.listCalls, identity, { limit: 4, ...query, ...(cursor ? { cursor } : {}) });

  test('pages Older and Newer over NATS, newest first, with and without filters', async () => {
    assert.deepEqual(await walkBothWays(listOver({})), newestFirst(seeded));
    const inboundAnswered = seeded.filter((call) => call.direction === 'inbound' && call.status === 'completed');
    assert.deepEqual(await walkBothWays(listOver({ direction: 'inbound', status: 'completed' })), newestFirst(inboundAnswered));
  });

  test('filters combine: direction, outcome, status, created from/to, lead and number (from or to)', async () => {
    const from = new Date(base + 5 * 60_000);
    const to = new Date(base + 18 * 60_000);
    const cases: Array<[Record<string, unknown>, (call: (typeof seeded)[number]) => boolean]> = [
      [{ number: '2125551003' }, (call) => call.fromNumber.includes('2125551003') || call.toNumber.includes('2125551003')],
      [{ number: '+1212555100' }, () => true],
      [{ number: '5551003', direction: 'inbound' }, (call) => call.direction === 'inbound' && call.fromNumber.endsWith('5551003')],
      [{ outcome: 'voicemail', status: 'failed' }, (call) => call.outcome === 'voicemail' && call.status === 'failed'],
      [{ lead_id: lead, direction: 'inbound' }, (call) => call.leadId === lead && call.direction === 'inbound'],
      [
        { created_after: from.toISOString(), created_before: to.toISOString(), status: 'queued' },
        (call) => call.createdAt >= from && call.createdAt < to && call.status === 'queued',
      ],
    ];
    for (const [query, predicate] of cases) {
      const want = newestFirst(seeded.filter(predicate));
      assert.ok(want.length > 0, JSON.stringify(query));
      assert.deepEqual(await walkBothWays(listOver(query)), want, JSON.stringify(query));
    }
    // The index is asked for the last 7 digits only; the whole search must still be in one number.
    assert.ok(seeded.some((call) => `${call.fromNumber} ${call.toNumber}`.includes('5551003')));
    assert.deepEqual(await walkBothWays(listOver({ number: '9995551003' })), []);
  });

  test('the REST list takes the same filters and both cursors; old clients keep working with next_cursor alone', async () => {
    const first = await h.request(identity, 'GET', '/api/v1/phone/calls?limit=3&number=2125551001');
    assert.equal(first.statusCode, 200, first.body);
    const page = first.json() as TwoWayPage<Listed>;
    assert.equal(page.prev_cursor, null);
    assert.ok(page.next_cursor);
    const second = (
      await h.request(identity, 'GET', `/api/v1/phone/calls?limit=3&number=2125551001&cursor=${page.next_cursor}`)
    ).json() as TwoWayPage<Listed>;
    assert.ok(second.prev_cursor);
    const back = (
      await h.request(identity, 'GET', `/api/v1/phone/calls?limit=3&number=2125551001&cursor=${second.prev_cursor}`)
    ).json() as TwoWayPage<Listed>;
    assert.deepEqual(
      back.data.map((call) => call.id),
      page.data.map((call) => call.id),
    );
  });

  test('bad filters and cursors are 400 in the error envelope, over REST and NATS', async () => {
    for (const query of ['number=12', 'number=abc1234', 'number=%25%25%25', 'direction=sideways', 'created_after=yesterday']) {
      const response = await h.request(identity, 'GET', `/api/v1/phone/calls?${query}`);
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json().error.code, 'invalid_request', query);
    }
    await assert.rejects(caller.call(telephonyRpc.listCalls, identity, { number: '1' }), isApiError('invalid_request', 'number'));
    const page = await caller.call(telephonyRpc.listCalls, identity, { limit: 2, direction: 'inbound' });
    assert.ok(page.next_cursor);
    // A cursor is bound to its filters, whichever way it points.
    await assert.rejects(
      caller.call(telephonyRpc.listCalls, identity, { limit: 2, direction: 'outbound', cursor: page.next_cursor }),
      isApiError('invalid_cursor', 'cursor'),
    );
    const second = await caller.call(telephonyRpc.listCalls, identity, { limit: 2, direction: 'inbound', cursor: page.next_cursor });
    await assert.rejects(
      caller.call(telephonyRpc.listCalls, identity, { limit: 2, number: '5551001', cursor: second.prev_cursor ?? '' }),
      isApiError('invalid_cursor', 'cursor'),
    );
    await assert.rejects(caller.call(telephonyRpc.listCalls, identity, { cursor: 'bm90IGEgY3Vyc29y' }), isApiError('invalid_cursor'));
  });

  test("another organization's calls never show, whatever the search", async () => {
    const mine = new Set(seeded.map((call) => call.id));
    const theirs = await caller.call(telephonyRpc.listCalls, stranger, { limit: 100, number: '212555' });
    assert.equal(theirs.data.length, 10);
    assert.ok(theirs.data.every((call) => !mine.has(call.id)));
  });
});

describe("a call's page", () => {
  const identity = testIdentity();
  const stranger = testIdentity();

  const finished = (who: Identity, id: string) =>
    eventually(
      'the call to finish',
      async () => {
        const call = await caller.call(telephonyRpc.getCall, who, { id });
        return ['completed', 'busy', 'no_answer', 'failed', 'canceled'].includes(call.status) ? call : undefined;
      },
      { timeoutMs: 15_000 },
    );

  const assertInOrder = (call: Call, statuses: string[]) => {
    assert.deepEqual(
      call.timeline.map((change) => change.status),
      statuses,
    );
    const times = call.timeline.map((change) => Date.parse(change.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'oldest first',
    );
    assert.equal(call.timeline[0]?.at, call.created_at);
  };

  test('a completed call: every status with its time, the transcript as turns and as text, summary, cost', async () => {
    const queued = await caller.call(telephonyRpc.queueCall, identity, {
      to: '+14155550701',
      metadata: { sandbox_status: 'completed', sandbox_outcome: 'booked' },
      source: 'api',
    });
    // Every door that returns a call gives its timeline, the queueing answer included.
    assert.deepEqual(queued.timeline, [{ status: 'queued', at: queued.created_at }]);
    const call = await finished(identity, queued.id);
    assertInOrder(call, ['queued', 'ringing', 'in_progress', 'completed']);
    assert.equal(call.timeline[2]?.at, call.started_at);
    assert.equal(call.timeline[3]?.at, call.ended_at);
    assert.equal(call.outcome, 'booked');
    assert.ok(call.summary?.startsWith('[sandbox simulation]'));
    assert.ok(call.cost && call.cost.amount > 0);
    const turns = call.transcript_turns ?? [];
    assert.deepEqual(
      turns.map((turn) => turn.speaker),
      ['system', 'agent', 'contact', 'agent'],
    );
    assert.match(turns[0]?.text ?? '', /sandbox simulation/);
    // The text is the turns, one line each, as the API has always given it.
    assert.equal(call.transcript?.split('\n').length, turns.length);
    assert.match(call.transcript ?? '', /^\[sandbox simulation: no real call was placed\]\nAgent: Hello/);
    // REST gives the same page.
    const rest = await h.request(identity, 'GET', `/api/v1/phone/calls/${queued.id}`);
    assert.equal(rest.statusCode, 200);
    assert.deepEqual(rest.json().timeline, call.timeline);
  });

  test('a busy call and a canceled one end where they ended', async () => {
    const busy = await caller.call(telephonyRpc.queueCall, identity, {
      to: '+14155550702',
      metadata: { sandbox_status: 'busy' },
      source: 'api',
    });
    assertInOrder(await finished(identity, busy.id), ['queued', 'ringing', 'busy']);
    // A queued call the dialer has not reached (written straight in), canceled by the person.
    const id = newId('call');
    await h.deps.prisma.call.create({
      data: {
        id,
        orgId: identity.org_id,
        direction: 'outbound',
        fromNumber: '+15005550006',
        toNumber: '+14155550703',
        status: 'queued',
        source: 'api',
      },
    });
    await caller.call(telephonyRpc.cancelCall, identity, { id });
    const canceled = await caller.call(telephonyRpc.getCall, identity, { id });
    assertInOrder(canceled, ['queued', 'canceled']);
    assert.equal(canceled.transcript_turns, null);
  });

  test("another organization's call is not_found, over NATS and REST", async () => {
    const queued = await caller.call(telephonyRpc.queueCall, identity, { to: '+14155550704', source: 'api' });
    await assert.rejects(caller.call(telephonyRpc.getCall, stranger, { id: queued.id }), isApiError('not_found', 'id'));
    const rest = await h.request(stranger, 'GET', `/api/v1/phone/calls/${queued.id}`);
    assert.equal(rest.statusCode, 404);
    assert.equal(rest.json().error.code, 'not_found');
    await assert.rejects(caller.call(telephonyRpc.getCall, identity, { id: 'call_nope' }), isApiError('invalid_request'));
  });
});

describe('messages: the list and a conversation', () => {
  const identity = testIdentity();
  const stranger = testIdentity();
  const contact = '+14155550999';
  let seeded: Array<{
    id: string;
    direction: 'inbound' | 'outbound';
    fromNumber: string;
    toNumber: string;
    status: string;
    createdAt: Date;
  }>;
  before(async () => {
    const base = Date.now() - 60 * 60 * 1000;
    seeded = Array.from({ length: 23 }, (_, i) => {
      const other = i % 2 === 0 ? contact : `+1415555${String(2000 + i).padStart(4, '0')}`;
      const inbound = i % 3 === 0;
      return {
        id: newId('sms'),
        direction: inbound ? ('inbound' as const) : ('outbound' as const),
        fromNumber: inbound ? other : '+15005550006',
        toNumber: inbound ? '+15005550006' : other,
        status: inbound ? 'received' : i % 4 === 1 ? 'delivered' : 'sent',
        createdAt: new Date(base + Math.floor(i / 2) * 1000),
      };
    });
    const rows = seeded.map((sms) => ({ ...sms, status: sms.status as 'sent', body: 'hi', segments: 1, source: 'api' as const }));
    await h.deps.prisma.sms.createMany({ data: rows.map((row) => ({ ...row, orgId: identity.org_id })) });
    await h.deps.prisma.sms.createMany({ data: rows.slice(0, 6).map((row) => ({ ...row, id: newId('sms'), orgId: stranger.org_id })) });
  });

  const listOver = (who: Identity, query: Record<string, unknown>) => (cursor: string | undefined) =>
    caller.call(telephonyRpc.listSms, who, { limit: 3, ...query, ...(cursor ? { cursor } : {}) });

  test('a conversation: both directions with one number, each with its delivery status, paged both ways', async () => {
    const want = newestFirst(seeded.filter((sms) => sms.fromNumber === contact || sms.toNumber === contact));
    assert.deepEqual(await walkBothWays(listOver(identity, { phone: contact })), want);
    const page = await caller.call(telephonyRpc.listSms, identity, { phone: contact, limit: 100 });
    assert.deepEqual(new Set(page.data.map((sms) => sms.direction)), new Set(['inbound', 'outbound']));
    assert.ok(page.data.every((sms) => ['received', 'delivered', 'sent'].includes(sms.status)));
    assert.equal((await caller.call(telephonyRpc.listSms, stranger, { phone: contact, limit: 100 })).data.length, 3);
  });

  test('filters: number contains, direction and status', async () => {
    assert.deepEqual(
      await walkBothWays(listOver(identity, { number: '55520', direction: 'outbound' })),
      newestFirst(seeded.filter((sms) => sms.direction === 'outbound' && sms.toNumber.includes('55520'))),
    );
    assert.deepEqual(
      await walkBothWays(listOver(identity, { status: 'delivered' })),
      newestFirst(seeded.filter((sms) => sms.status === 'delivered')),
    );
    const bad = await h.request(identity, 'GET', '/api/v1/phone/sms?phone=4155550999');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_request');
  });
});

describe('the do-not-call list: search and check', () => {
  const identity = testIdentity();
  const stranger = testIdentity();
  before(async () => {
    for (let i = 0; i < 9; i++) {
      await caller.call(telephonyRpc.addDnc, identity, {
        phone: `+1303555${String(3000 + i)}`,
        channel: i % 2 === 0 ? 'all' : 'sms',
        source: 'manual',
        ...(i % 3 === 0 ? { reason: 'Asked by Phone on the Callback' } : {}),
      });
    }
    await caller.call(telephonyRpc.addDnc, stranger, { phone: '+13035553001', source: 'manual', reason: 'callback' });
  });

  test('search by digits or by reason, in any case, paged both ways; checks answer exists', async () => {
    const phones = async (search: string) =>
      (await walkBothWays((cursor) => caller.call(telephonyRpc.listDnc, identity, { limit: 2, search, ...(cursor ? { cursor } : {}) })))
        .length;
    assert.equal(await phones('5553001'), 1);
    assert.equal(await phones('30355530'), 9);
    assert.equal(await phones('CALLBACK'), 3);
    assert.equal(await phones('nothing like it'), 0);
    const check = await caller.call(telephonyRpc.checkDnc, identity, { phone: '+13035553001' });
    assert.deepEqual([check.listed, check.blocks], [true, { voice: false, sms: true }]);
    const unlisted = await caller.call(telephonyRpc.checkDnc, identity, { phone: '+13035559999' });
    assert.equal(unlisted.listed, false);
    const theirs = await caller.call(telephonyRpc.listDnc, stranger, { search: '303555' });
    assert.equal(theirs.data.length, 1);
  });

  test("one entry by its id (the console's removal confirmation); another organization's id is not_found", async () => {
    const [listed] = (await caller.call(telephonyRpc.listDnc, identity, { search: '5553001' })).data;
    assert.ok(listed);
    assert.deepEqual(await caller.call(telephonyRpc.getDnc, identity, { id: listed.id }), listed);
    await assert.rejects(caller.call(telephonyRpc.getDnc, stranger, { id: listed.id }), isApiError('not_found', 'id'));
    await assert.rejects(caller.call(telephonyRpc.getDnc, identity, { id: 'dnc_neverexisted00' }), isApiError('not_found', 'id'));
  });
});
