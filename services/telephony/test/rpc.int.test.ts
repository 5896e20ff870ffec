import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError, type Bus, newId } from '@voice/kit';
import { eventually, testIdentity } from '@voice/kit/testing';
import { telephonyRpc } from '@voice/proto';
import { connectCaller, type Harness, startHarness } from './support/harness.js';

let h: Harness;
let caller: Bus;
before(async () => {
  // A short sweep interval, so the test can watch the sweeper recover a call whose job was lost.
  h = await startHarness({ DIAL_SWEEP_INTERVAL_MS: '300' });
  // Another service's connection, as the MCP or leads service would call.
  caller = await connectCaller(h, 'test-caller');
});
after(async () => {
  await caller.drain();
  await h.close();
});

async function rejects(promise: Promise<unknown>, code: string) {
  await assert.rejects(promise, (error: unknown) => error instanceof ApiError && error.code === code);
}

test('a sequence queues a call and an SMS over NATS; the do-not-call list refuses both', async () => {
  const identity = testIdentity();
  const lead = await h.lead(identity);
  const call = await caller.call(telephonyRpc.queueCall, identity, {
    to: '+14155550601',
    lead_id: lead,
    source: 'sequence',
    idempotency_key: 'seq-step-1',
  });
  assert.equal(call.status, 'queued');
  assert.equal(call.source, 'sequence');
  assert.equal(call.lead_id, lead);
  const again = await caller.call(telephonyRpc.queueCall, identity, {
    to: '+14155550601',
    lead_id: lead,
    source: 'sequence',
    idempotency_key: 'seq-step-1',
  });
  assert.equal(again.id, call.id);
  const sms = await caller.call(telephonyRpc.sendSms, identity, {
    to: '+14155550601',
    body: 'Following up on our call',
    source: 'sequence',
  });
  assert.equal(sms.status, 'queued');

  const entry = await caller.call(telephonyRpc.addDnc, identity, { phone: '+14155550601', source: 'mcp' });
  assert.equal(entry.source, 'mcp');
  const check = await caller.call(telephonyRpc.checkDnc, identity, { phone: '+14155550601' });
  assert.deepEqual({ listed: check.listed, channels: check.channels }, { listed: true, channels: ['all'] });
  await rejects(caller.call(telephonyRpc.queueCall, identity, { to: '+14155550601' }), 'dnc_blocked');
  await rejects(caller.call(telephonyRpc.sendSms, identity, { to: '+14155550601', body: 'hi' }), 'dnc_blocked');

  const removed = await caller.call(telephonyRpc.removeDnc, identity, { id: entry.id });
  assert.equal(removed.deleted, true);
  const list = await caller.call(telephonyRpc.listDnc, identity, {});
  assert.equal(list.data.length, 0);
});

test("over NATS too, another organization's lead is not_found on lead_id and nothing is written", async () => {
  const owner = testIdentity();
  const stranger = testIdentity();
  const lead = await h.lead(owner);
  const notFoundLead = (error: unknown) => error instanceof ApiError && error.code === 'not_found' && error.param === 'lead_id';
  await assert.rejects(caller.call(telephonyRpc.queueCall, stranger, { to: '+14155550611', lead_id: lead, source: 'mcp' }), notFoundLead);
  await assert.rejects(
    caller.call(telephonyRpc.sendSms, stranger, { to: '+14155550611', body: 'hi', lead_id: lead, source: 'mcp' }),
    notFoundLead,
  );
  assert.equal((await caller.call(telephonyRpc.listCalls, stranger, {})).data.length, 0);
  assert.equal((await caller.call(telephonyRpc.listSms, stranger, {})).data.length, 0);
});

test('reads over NATS match REST and stay inside the organization', async () => {
  const identity = testIdentity();
  const call = await caller.call(telephonyRpc.queueCall, identity, { to: '+14155550602', source: 'mcp' });
  const got = await caller.call(telephonyRpc.getCall, identity, { id: call.id });
  assert.equal(got.id, call.id);
  const rest = (await h.request(identity, 'GET', `/api/v1/phone/calls/${call.id}`)).json();
  assert.equal(rest.id, got.id);
  const page = await caller.call(telephonyRpc.listCalls, identity, { limit: 10 });
  assert.deepEqual(
    page.data.map((c) => c.id),
    [call.id],
  );
  const stats = await caller.call(telephonyRpc.callStats, identity, {});
  assert.equal(stats.total, 1);
  assert.equal(stats.by_direction.outbound, 1);
  const sms = await caller.call(telephonyRpc.sendSms, identity, { to: '+14155550602', body: 'hello' });
  assert.equal((await caller.call(telephonyRpc.getSms, identity, { id: sms.id })).id, sms.id);
  assert.equal((await caller.call(telephonyRpc.listSms, identity, {})).data.length, 1);

  const stranger = testIdentity();
  await rejects(caller.call(telephonyRpc.getCall, stranger, { id: call.id }), 'not_found');
  await rejects(caller.call(telephonyRpc.cancelCall, stranger, { id: call.id }), 'not_found');
  await rejects(caller.call(telephonyRpc.getSms, stranger, { id: sms.id }), 'not_found');
  assert.equal((await caller.call(telephonyRpc.listCalls, stranger, {})).data.length, 0);
});

test('bad input and read keys are refused with their codes', async () => {
  const identity = testIdentity();
  await rejects(caller.call(telephonyRpc.queueCall, identity, { to: 'not a phone' }), 'invalid_request');
  await rejects(caller.call(telephonyRpc.listCalls, identity, { cursor: 'garbage' }), 'invalid_cursor');
  await rejects(caller.call(telephonyRpc.queueCall, testIdentity({ scope: 'read' }), { to: '+14155550603' }), 'forbidden_scope');
  await rejects(caller.call(telephonyRpc.addDnc, testIdentity({ scope: 'read' }), { phone: '+14155550603' }), 'forbidden_scope');
  // A read key may still read.
  assert.equal((await caller.call(telephonyRpc.checkDnc, testIdentity({ scope: 'read' }), { phone: '+14155550603' })).listed, false);
});

test('a queued call whose dialer job was lost is found by the sweeper and dialed', async () => {
  const identity = testIdentity();
  // Stored as the queue endpoint stores it, but with no job in Redis (as after a failed enqueue or a flush).
  const row = await h.deps.prisma.call.create({
    data: {
      id: newId('call'),
      orgId: identity.org_id,
      direction: 'outbound',
      fromNumber: '+15005550006',
      toNumber: '+14155550604',
      status: 'queued',
      source: 'api',
      metadata: { sandbox_status: 'busy' },
    },
  });
  const done = await eventually(
    'the swept call to finish',
    async () => {
      const call = await caller.call(telephonyRpc.getCall, identity, { id: row.id });
      return call.status === 'busy' ? call : undefined;
    },
    { timeoutMs: 15_000 },
  );
  assert.equal(done.end_reason, 'busy');
  assert.equal((await h.deps.prisma.call.findUnique({ where: { id: row.id } }))?.dialAttempts, 1);
});

test('a NATS request without the signing secret gets nothing: no listing, no do-not-call entry', async () => {
  const victim = testIdentity();
  await caller.call(telephonyRpc.queueCall, victim, { to: '+14155550603', source: 'mcp' });
  // The raw nats.js connection, used as any client that reaches the server could: no signature header.
  const ask = async (name: string, input: unknown) => {
    const data = new TextEncoder().encode(JSON.stringify({ identity: victim, input }));
    const reply = await caller.connection.request(`${h.ctx.natsNamespace}.${name}`, data, { timeout: 2_000 });
    return JSON.parse(new TextDecoder().decode(reply.data)) as { ok: boolean; result?: unknown; error?: { code: string } };
  };
  const list = await ask(telephonyRpc.listCalls.subject, {});
  assert.deepEqual([list.ok, list.error?.code, list.result], [false, 'unauthenticated', undefined]);
  const add = await ask(telephonyRpc.addDnc.subject, { phone: '+14155550603', source: 'mcp' });
  assert.deepEqual([add.ok, add.error?.code], [false, 'unauthenticated']);
  assert.equal((await caller.call(telephonyRpc.listDnc, victim, {})).data.length, 0, 'nothing was added');
  assert.equal((await caller.call(telephonyRpc.listCalls, victim, {})).data.length, 1, 'the signed path still answers');
});
