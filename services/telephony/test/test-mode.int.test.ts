// Test mode in a deployment whose carrier is Twilio (README, "Test mode"): a test twin's calls and messages
// are played out by the sandbox simulator and never reach the carrier (the Twilio stand-in counts every
// request), its magic numbers end as stated, a STOP reply and the inbound helpers touch the twin alone, and
// the advance helper moves a call by the simulator's own moves, once, whatever runs beside it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError, type Bus, newId } from '@voice/kit';
import { eventually, testIdentity } from '@voice/kit/testing';
import {
  type Call,
  type CallListItem,
  type CallStatus,
  type DncEntry,
  type EventEnvelope,
  type Identity,
  type Page,
  type Sms,
  telephonyRpc,
  testPhoneNumbers,
  testStopReplyNumber,
  testTwinOf,
} from '@voice/proto';
import type { SandboxStep } from '../src/carrier/sandbox.js';
import { twilioSignature } from '../src/carrier/twilio-signature.js';
import { processSandboxStep } from '../src/dialer/workers.js';
import { type FakeTwilio, startFakeTwilio } from './support/fake-twilio.js';
import { collectEvents, connectCaller, type Harness, startHarness } from './support/harness.js';

const publicBaseUrl = 'https://api.example.test';
/** The platform's number (TELEPHONY_DEFAULT_FROM's default), owned by a live organization in this deployment. */
const platformNumber = '+15005550006';
const numberOwner = testIdentity();
const twinOf = (live: Identity) => testIdentity({ org_id: testTwinOf(live.org_id) });

let twilio: FakeTwilio;
/** The deployment: Twilio for live organizations, the sandbox (fast) for test twins, every worker running. */
let h: Harness;
/**
 * The same deployment with no workers and the sandbox at real time: nothing moves a call unless the test
 * does, and the events stay in the outbox table, where the test counts them.
 */
let still: Harness;
let caller: Bus;
const eventTypes = [
  'call.queued',
  'call.ringing',
  'call.started',
  'call.completed',
  'call.failed',
  'call.canceled',
  'sms.sent',
  'sms.delivered',
  'sms.received',
  'dnc.added',
  'dnc.removed',
] as const;
let events: EventEnvelope<(typeof eventTypes)[number]>[];

before(async () => {
  twilio = await startFakeTwilio();
  const twilioEnv = {
    TELEPHONY_CARRIER: 'twilio',
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_API_BASE_URL: twilio.url,
    PUBLIC_BASE_URL: publicBaseUrl,
    TELEPHONY_NUMBER_ORGS: `${platformNumber}=${numberOwner.org_id}`,
  };
  h = await startHarness({ ...twilioEnv, SANDBOX_TIME_SCALE: '0.002' });
  still = await startHarness({ ...twilioEnv, SANDBOX_TIME_SCALE: '1', WORKERS: 'none' });
  events = await collectEvents(h.deps.bus, 'test-mode', eventTypes);
  caller = await connectCaller(h, 'test-mode-caller');
});
after(async () => {
  await caller?.drain();
  await h?.close();
  await still?.close();
  await twilio?.close();
});

const json = <T>(response: { json(): unknown }) => response.json() as T;
const recordOf = (event: EventEnvelope) =>
  (event.data as { call_id?: string; sms_id?: string }).call_id ?? (event.data as { sms_id?: string }).sms_id;
const eventsOf = (id: string) => events.filter((event) => recordOf(event) === id);
const timelineOf = (call: Call) => call.timeline.map((change) => change.status);

async function queueCall(harness: Harness, identity: Identity, to: string, metadata?: Record<string, string>): Promise<Call> {
  const response = await harness.request(identity, 'POST', '/api/v1/phone/calls', { to, ...(metadata ? { metadata } : {}) });
  assert.equal(response.statusCode, 201, response.body);
  return json<Call>(response);
}

const getCall = async (harness: Harness, identity: Identity, id: string) =>
  json<Call>(await harness.request(identity, 'GET', `/api/v1/phone/calls/${id}`));

/** The call once ended, read after its timeline has its final status (a call's row and timeline are read side by side). */
const ended = (harness: Harness, identity: Identity, id: string) =>
  eventually(`call ${id} to end`, async () => {
    const call = await getCall(harness, identity, id);
    return call.ended_at && call.timeline.at(-1)?.status === call.status ? call : undefined;
  });

/** Every request the Twilio stand-in got, by the number it was about. */
const twilioRecipients = () => twilio.requests.map((request) => request.form.get('To') ?? request.query.get('To') ?? request.path);

describe('a test twin in a Twilio deployment', () => {
  const live = testIdentity();
  const twin = twinOf(live);

  test('its calls to every magic number play out as the number says, livemode false, and Twilio hears nothing', async () => {
    const magic = Object.entries(testPhoneNumbers);
    const queued = await Promise.all(magic.map(([number]) => queueCall(h, twin, number)));
    for (const call of queued) assert.equal(call.livemode, false);
    // A number that is not magic gets the simulator's mix, simulated just the same.
    const ordinary = await queueCall(h, twin, '+14155550199');

    const done = await Promise.all([...queued, ordinary].map((call) => ended(h, twin, call.id)));
    for (const [index, [number, expected]] of magic.entries()) {
      const call = done[index] as Call;
      assert.deepEqual([call.to, call.status, call.outcome, call.livemode], [number, expected.status, expected.outcome, false], number);
      if (expected.status === 'completed') {
        assert.deepEqual(timelineOf(call), ['queued', 'ringing', 'in_progress', 'completed'], number);
        assert.ok((call.duration_seconds ?? 0) > 0, number);
        assert.equal(call.cost?.currency, 'USD');
        assert.ok((call.cost?.amount ?? 0) > 0, 'a test call has a (simulated) cost');
        assert.ok(call.summary?.startsWith('[test mode simulation]'), call.summary ?? 'no summary');
        assert.match(call.transcript ?? '', /^\[test mode simulation: no real call was placed\]\nAgent: /);
        assert.equal(call.transcript_turns?.[0]?.speaker, 'system');
      } else {
        assert.deepEqual(timelineOf(call), ['queued', 'ringing', expected.status], number);
        assert.equal(call.end_reason, expected.status);
        assert.equal(call.transcript, null);
      }
      const mine = await eventually(`the events of ${number}`, () => {
        const found = eventsOf(call.id);
        return found.length === timelineOf(call).length ? found : undefined;
      });
      const finalEvent = expected.status === 'completed' ? 'call.completed' : 'call.failed';
      assert.deepEqual(
        mine.map((event) => event.type),
        expected.status === 'completed'
          ? ['call.queued', 'call.ringing', 'call.started', 'call.completed']
          : ['call.queued', 'call.ringing', finalEvent],
      );
      for (const event of mine) {
        assert.equal(event.org_id, twin.org_id);
        assert.equal(event.livemode, false, `${event.type} envelope`);
        assert.equal((event.data as { livemode?: boolean }).livemode, false, `${event.type} data`);
      }
      assert.equal((mine.at(-1)?.data as { outcome?: unknown } | undefined)?.outcome, expected.outcome);
    }
    const simulated = done.at(-1) as Call;
    assert.ok(['completed', 'busy', 'no_answer'].includes(simulated.status), simulated.status);
    assert.equal(simulated.livemode, false);
    const stored = await h.deps.prisma.call.findMany({ where: { orgId: twin.org_id }, select: { carrierCallId: true } });
    assert.ok(
      stored.every((row) => row.carrierCallId?.startsWith('SB')),
      'placed by the sandbox, not Twilio',
    );
    assert.deepEqual(twilio.requests, [], 'the Twilio stand-in got no request');
  });

  test('a test message to the STOP number is delivered, then answered STOP: filed under the twin alone, with a do-not-call entry', async () => {
    // The live organization wrote to the same number from the same platform number, later than the twin
    // will, and owns that number: a real STOP would be filed under it. The simulated one must not be.
    await h.deps.prisma.sms.create({
      data: {
        id: newId('sms'),
        orgId: live.org_id,
        direction: 'outbound',
        fromNumber: platformNumber,
        toNumber: testStopReplyNumber,
        body: 'Live message',
        segments: 1,
        status: 'delivered',
        source: 'api',
        createdAt: new Date(Date.now() + 60_000),
      },
    });
    const sent = json<Sms>(await h.request(twin, 'POST', '/api/v1/phone/sms', { to: testStopReplyNumber, body: 'Your quote is ready' }));
    assert.equal(sent.livemode, false);
    const reply = await eventually('the STOP reply', async () => {
      const page = json<Page<Sms>>(await h.request(twin, 'GET', '/api/v1/phone/sms?direction=inbound'));
      return page.data[0];
    });
    assert.deepEqual(
      [reply.from, reply.to, reply.body, reply.status, reply.source, reply.livemode],
      [testStopReplyNumber, platformNumber, 'STOP', 'received', 'inbound', false],
    );
    const delivered = await getSms(twin, sent.id);
    assert.equal(delivered.status, 'delivered');
    assert.ok(Date.parse(delivered.delivered_at ?? '') <= Date.parse(reply.created_at), 'the reply follows the delivery');

    // The opt-out follows the filing of the message, as for a real one.
    const dnc = await eventually('the do-not-call entry', async () => {
      const page = json<Page<DncEntry>>(await h.request(twin, 'GET', `/api/v1/phone/dnc?phone=${encodeURIComponent(testStopReplyNumber)}`));
      return page.data.length > 0 ? page : undefined;
    });
    assert.deepEqual(
      dnc.data.map((entry) => [entry.channel, entry.source]),
      [['sms', 'sms_stop']],
    );
    const received = await eventually('sms.received', () =>
      events.find((event) => event.type === 'sms.received' && recordOf(event) === reply.id),
    );
    assert.deepEqual([received.org_id, received.livemode, (received.data as Sms).livemode], [twin.org_id, false, false]);
    await eventually('dnc.added', () => events.find((event) => event.type === 'dnc.added' && event.org_id === twin.org_id));

    // Nothing of it reached a live organization: not the number's owner, not the twin's own live organization.
    for (const orgId of [live.org_id, numberOwner.org_id]) {
      assert.equal(await h.deps.prisma.sms.count({ where: { orgId, direction: 'inbound' } }), 0, orgId);
      assert.equal(await h.deps.prisma.dncEntry.count({ where: { orgId } }), 0, orgId);
    }
    // As for a real opt-out, the number cannot be written to again until it is lifted.
    const again = await h.request(twin, 'POST', '/api/v1/phone/sms', { to: testStopReplyNumber, body: 'Still there?' });
    assert.equal(again.statusCode, 422);
    assert.equal(again.json().error.code, 'dnc_blocked');
    // One reply however often the step runs.
    await processSandboxStep(h.deps, h.deps.queues, { kind: 'sms', smsId: sent.id, orgId: twin.org_id, step: 'stop_reply' });
    assert.equal(await h.deps.prisma.sms.count({ where: { orgId: twin.org_id, direction: 'inbound' } }), 1);
    assert.deepEqual(twilio.requests, []);
  });

  test('canceling a ringing test call stops it in the simulator, not at Twilio', async () => {
    // Placed and ringing, as the sandbox leaves it (in the deployment with no workers, so it stays ringing).
    const call = await queueCall(still, twin, '+15005550101');
    await still.request(twin, 'POST', `/api/v1/test_helpers/calls/${call.id}/advance`);
    await still.deps.prisma.call.update({ where: { id: call.id }, data: { carrierCallId: 'SBplaced0001' } });
    const canceled = await still.request(twin, 'POST', `/api/v1/phone/calls/${call.id}/cancel`);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.deepEqual([canceled.json().status, canceled.json().livemode], ['canceled', false]);
    assert.deepEqual(twilio.requests, []);
  });

  test('real inbound traffic never lands in a test twin, even from a number only the twin contacted', async () => {
    const theirs = '+14155550188';
    const ours = '+15005550188';
    const sent = json<Sms>(await h.request(twin, 'POST', '/api/v1/phone/sms', { to: theirs, from: ours, body: 'Test hello' }));
    await eventually('delivery', async () => ((await getSms(twin, sent.id)).status === 'delivered' ? true : undefined));
    const sms = await twilioPost('/api/hooks/twilio/sms/inbound', {
      MessageSid: `SM${'c'.repeat(32)}`,
      From: theirs,
      To: ours,
      Body: 'STOP',
    });
    assert.equal(sms.statusCode, 200);
    const call = await twilioPost('/api/hooks/twilio/calls/inbound', { CallSid: `CA${'c'.repeat(32)}`, From: theirs, To: ours });
    assert.match(call.body, /<Reject/, 'routes nowhere: the only conversation is a test one');
    assert.equal(await h.deps.prisma.sms.count({ where: { orgId: twin.org_id, direction: 'inbound', fromNumber: theirs } }), 0);
    assert.equal(await h.deps.prisma.dncEntry.count({ where: { orgId: twin.org_id, phone: theirs } }), 0);
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: twin.org_id, direction: 'inbound' } }), 0);

    // Nor does a carrier's report about a test call or message: Twilio never had them.
    const id = newId('call');
    await h.deps.prisma.call.create({
      data: {
        id,
        orgId: twin.org_id,
        direction: 'outbound',
        fromNumber: platformNumber,
        toNumber: theirs,
        status: 'ringing',
        source: 'api',
        carrierCallId: 'SBringing0001',
      },
    });
    const report = await twilioPost(`/api/hooks/twilio/calls/status?call_id=${id}`, { CallStatus: 'completed', CallDuration: '60' });
    assert.equal(report.statusCode, 204);
    assert.equal((await getCall(h, twin, id)).status, 'ringing');
    const smsReport = await twilioPost(`/api/hooks/twilio/sms/status?sms_id=${sent.id}`, { MessageStatus: 'failed', ErrorCode: '30003' });
    assert.equal(smsReport.statusCode, 204);
    assert.equal((await getSms(twin, sent.id)).status, 'delivered');
  });

  test('simulated inbound calls ring, are answered and complete under the twin alone, with their events', async () => {
    const chosen = json<Call>(
      await h.request(twin, 'POST', '/api/v1/test_helpers/calls/inbound', { from: '+14155550177', outcome: 'booked' }),
    );
    assert.deepEqual(
      [chosen.direction, chosen.source, chosen.status, chosen.from, chosen.to, chosen.livemode],
      ['inbound', 'inbound', 'ringing', '+14155550177', platformNumber, false],
    );
    const magic = await h.request(twin, 'POST', '/api/v1/test_helpers/calls/inbound', { from: '+15005550101', to: '+15005550177' });
    assert.equal(magic.statusCode, 201, magic.body);
    for (const [id, outcome] of [
      [chosen.id, 'booked'],
      [json<Call>(magic).id, 'qualified_lead'],
    ] as const) {
      const call = await ended(h, twin, id);
      assert.deepEqual([call.status, call.outcome], ['completed', outcome]);
      assert.deepEqual(timelineOf(call), ['ringing', 'in_progress', 'completed']);
      assert.match(call.transcript ?? '', /^\[test mode simulation: no real call was received\]/);
      const mine = await eventually('its events', () => (eventsOf(id).length === 3 ? eventsOf(id) : undefined));
      assert.deepEqual(
        mine.map((event) => [event.type, event.org_id, event.livemode]),
        [
          ['call.ringing', twin.org_id, false],
          ['call.started', twin.org_id, false],
          ['call.completed', twin.org_id, false],
        ],
      );
    }
    // The platform number's live owner gets none of it.
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: numberOwner.org_id } }), 0);
    assert.deepEqual(twilio.requests, []);
  });

  test('simulated inbound messages are filed under the twin with its contact’s lead; STOP and START act on its list alone', async () => {
    const contact = '+14155550166';
    const lead = newId('lead');
    // The twin's earlier message to that contact, about a lead: the reply is filed with it.
    await h.deps.prisma.sms.create({
      data: {
        id: newId('sms'),
        orgId: twin.org_id,
        direction: 'outbound',
        fromNumber: platformNumber,
        toNumber: contact,
        body: 'Earlier',
        segments: 1,
        status: 'delivered',
        leadId: lead,
        source: 'api',
      },
    });
    const hello = await h.request(twin, 'POST', '/api/v1/test_helpers/sms/inbound', { from: contact, body: 'Hello there' });
    assert.equal(hello.statusCode, 201, hello.body);
    const message = json<Sms>(hello);
    assert.deepEqual(
      [message.direction, message.status, message.from, message.to, message.lead_id, message.livemode],
      ['inbound', 'received', contact, platformNumber, lead, false],
    );
    await eventually('sms.received', () => events.find((event) => event.type === 'sms.received' && recordOf(event) === message.id));

    const stop = await h.request(twin, 'POST', '/api/v1/test_helpers/sms/inbound', { from: contact, body: 'stop' });
    assert.equal(stop.statusCode, 201);
    const check = json<{ listed: boolean; entries: DncEntry[] }>(
      await h.request(twin, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(contact)}`),
    );
    assert.deepEqual(
      check.entries.map((entry) => entry.source),
      ['sms_stop'],
    );
    for (const orgId of [live.org_id, numberOwner.org_id]) {
      assert.equal(await h.deps.prisma.dncEntry.count({ where: { orgId } }), 0);
      assert.equal(await h.deps.prisma.sms.count({ where: { orgId, fromNumber: contact } }), 0);
    }
    await h.request(twin, 'POST', '/api/v1/test_helpers/sms/inbound', { from: contact, body: 'START' });
    const lifted = json<{ listed: boolean }>(await h.request(twin, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(contact)}`));
    assert.equal(lifted.listed, false);
    const invalid = await h.request(twin, 'POST', '/api/v1/test_helpers/sms/inbound', { from: 'nobody', body: '' });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().error.code, 'invalid_request');
  });

  test('every helper is 404 to a live identity, over REST and over NATS, and does nothing', async () => {
    const call = await queueCall(h, twin, '+15005550101');
    const helpers = [
      ['POST', `/api/v1/test_helpers/calls/${call.id}/advance`, {}],
      ['POST', '/api/v1/test_helpers/calls/inbound', { from: '+14155550155' }],
      ['POST', '/api/v1/test_helpers/sms/inbound', { from: '+14155550155', body: 'STOP' }],
    ] as const;
    for (const [method, url, body] of helpers) {
      const response = await h.request(live, method, url, body);
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().error.code, 'not_found', url);
    }
    const notFound = (error: unknown) => error instanceof ApiError && error.code === 'not_found';
    await assert.rejects(caller.call(telephonyRpc.advanceCall, live, { id: call.id }), notFound);
    await assert.rejects(caller.call(telephonyRpc.simulateInboundCall, live, { from: '+14155550155' }), notFound);
    await assert.rejects(caller.call(telephonyRpc.simulateInboundSms, live, { from: '+14155550155', body: 'STOP' }), notFound);
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: live.org_id } }), 0);
    assert.equal(await h.deps.prisma.dncEntry.count({ where: { orgId: live.org_id } }), 0);
    // The twin's own identity is served over NATS too.
    const inbound = await caller.call(telephonyRpc.simulateInboundSms, twin, { from: '+14155550155', body: 'Hi' });
    assert.equal(inbound.livemode, false);
  });

  test('after a helper moved a call on, the simulation goes on from there by itself, each event once', async () => {
    // A row as a dial leaves it with nothing scheduled yet: only the helper's steps play it.
    const id = newId('call');
    await h.deps.prisma.call.create({
      data: {
        id,
        orgId: twin.org_id,
        direction: 'outbound',
        fromNumber: platformNumber,
        toNumber: '+15005550101',
        status: 'queued',
        source: 'api',
      },
    });
    const ringing = json<Call>(await h.request(twin, 'POST', `/api/v1/test_helpers/calls/${id}/advance`));
    assert.equal(ringing.status, 'ringing');
    const call = await ended(h, twin, id);
    assert.deepEqual([call.status, call.outcome], ['completed', 'qualified_lead']);
    assert.deepEqual(timelineOf(call), ['queued', 'ringing', 'in_progress', 'completed']);
    const types = await eventually('its events', () => (eventsOf(id).length >= 3 ? eventsOf(id).map((event) => event.type) : undefined));
    assert.deepEqual(types, ['call.ringing', 'call.started', 'call.completed']);
  });
});

describe('live and test data of one organization stay apart', () => {
  test('the live organization and its twin see disjoint calls, messages and do-not-call lists; only live calls reach Twilio', async () => {
    const live = testIdentity();
    const twin = twinOf(live);
    const number = '+14155550144';
    const made = async (identity: Identity) => ({
      dnc: json<DncEntry>(await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: '+14155550145', reason: identity.org_id })),
      call: await queueCall(h, identity, number),
      sms: json<Sms>(await h.request(identity, 'POST', '/api/v1/phone/sms', { to: number, body: 'Hello' })),
    });
    const liveMade = await made(live);
    const twinMade = await made(twin);
    assert.deepEqual([liveMade.call.livemode, liveMade.sms.livemode], [true, true]);
    assert.deepEqual([twinMade.call.livemode, twinMade.sms.livemode], [false, false]);

    for (const [identity, own, other] of [
      [live, liveMade, twinMade],
      [twin, twinMade, liveMade],
    ] as const) {
      const calls = json<Page<CallListItem>>(await h.request(identity, 'GET', '/api/v1/phone/calls'));
      assert.deepEqual(
        calls.data.map((call) => call.id),
        [own.call.id],
      );
      const sms = json<Page<Sms>>(await h.request(identity, 'GET', '/api/v1/phone/sms'));
      assert.deepEqual(
        sms.data.map((message) => message.id),
        [own.sms.id],
      );
      const dnc = json<Page<DncEntry>>(await h.request(identity, 'GET', '/api/v1/phone/dnc'));
      assert.deepEqual(
        dnc.data.map((entry) => entry.id),
        [own.dnc.id],
      );
      for (const url of [
        `/api/v1/phone/calls/${other.call.id}`,
        `/api/v1/phone/sms/${other.sms.id}`,
        `/api/v1/phone/calls/${other.call.id}/cancel`,
      ]) {
        const response = await h.request(identity, url.endsWith('cancel') ? 'POST' : 'GET', url);
        assert.equal(response.statusCode, 404, `${identity.org_id} ${url}`);
      }
    }
    // The twin's advance helper cannot reach its live organization's call either.
    const advanced = await h.request(twin, 'POST', `/api/v1/test_helpers/calls/${liveMade.call.id}/advance`);
    assert.equal(advanced.statusCode, 404);

    // The live call and message went to Twilio; nothing of the twin's did.
    await eventually('the live call and message at Twilio', () => twilioRecipients().filter((to) => to === number).length === 2);
    await ended(h, twin, twinMade.call.id);
    await eventually('the test message delivered', async () =>
      (await getSms(twin, twinMade.sms.id)).status === 'delivered' ? true : undefined,
    );
    assert.deepEqual(twilioRecipients(), [number, number], 'exactly the live call and the live message');
    const liveRow = await h.deps.prisma.call.findUniqueOrThrow({ where: { id: liveMade.call.id } });
    assert.match(liveRow.carrierCallId ?? '', /^CA/);
    assert.equal((await getCall(h, live, liveMade.call.id)).status, 'queued', 'waiting for Twilio’s callbacks, not simulated');
  });
});

describe('the advance helper', () => {
  const twin = twinOf(testIdentity());
  const advance = (id: string, body?: Record<string, string>) =>
    still.request(twin, 'POST', `/api/v1/test_helpers/calls/${id}/advance`, body ?? {});
  /** The events of a call as written (the outbox: no relay runs here), each an own row. */
  const written = async (id: string) =>
    (await still.deps.prisma.outboxEvent.findMany({ where: { aggregateId: id }, orderBy: { seq: 'asc' } })).map(
      (row) => JSON.parse(row.envelope) as EventEnvelope,
    );
  const writtenTypes = async (id: string) => (await written(id)).map((event) => event.type);
  /** Runs every step the simulation could have scheduled, as late steps would, recording what they schedule. */
  async function runEveryStep(id: string) {
    const scheduled: SandboxStep[] = [];
    const queues = { scheduleSandbox: async (step: SandboxStep) => void scheduled.push(step) };
    for (const step of ['ringing', 'answer', 'hangup'] as const) {
      await processSandboxStep(still.deps, queues, { kind: 'call', callId: id, orgId: twin.org_id, step });
    }
    return scheduled;
  }

  test('with no body, takes the next step of the script each time, then refuses an ended call', async () => {
    const call = await queueCall(still, twin, '+15005550101');
    const statuses: CallStatus[] = [];
    for (let step = 0; step < 3; step++) {
      const response = await advance(call.id);
      assert.equal(response.statusCode, 200, response.body);
      statuses.push(json<Call>(response).status);
    }
    assert.deepEqual(statuses, ['ringing', 'in_progress', 'completed']);
    const done = await getCall(still, twin, call.id);
    assert.deepEqual([done.outcome, done.livemode, done.end_reason], ['qualified_lead', false, 'hangup']);
    assert.deepEqual(timelineOf(done), ['queued', 'ringing', 'in_progress', 'completed']);
    assert.ok(done.summary?.startsWith('[test mode simulation]'));
    assert.deepEqual(await writtenTypes(call.id), ['call.queued', 'call.ringing', 'call.started', 'call.completed']);
    assert.ok(
      (await written(call.id)).every((event) => event.livemode === false && (event.data as { livemode?: boolean }).livemode === false),
    );

    const refused = await advance(call.id);
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'conflict');

    // A busy number's script ends ringing with busy.
    const busy = await queueCall(still, twin, '+15005550103');
    assert.equal(json<Call>(await advance(busy.id)).status, 'ringing');
    const ended = json<Call>(await advance(busy.id));
    assert.deepEqual([ended.status, ended.outcome, ended.end_reason], ['busy', null, 'busy']);
    assert.deepEqual(await writtenTypes(busy.id), ['call.queued', 'call.ringing', 'call.failed']);
  });

  test('a chosen status goes through the states before it; behind or out of reach is a conflict', async () => {
    const call = await queueCall(still, twin, '+14155550133');
    const answered = json<Call>(await advance(call.id, { status: 'in_progress' }));
    assert.equal(answered.status, 'in_progress');
    assert.ok(answered.started_at);
    assert.deepEqual(timelineOf(answered), ['queued', 'ringing', 'in_progress']);
    // The simulation goes on from here by itself: its hang-up is scheduled.
    const hangup = await still.deps.queues.sandbox.getJob(`${call.id}-hangup`);
    assert.ok(hangup, 'the hang-up is scheduled');
    assert.ok((hangup.opts.delay ?? 0) >= 20_000, `after the talk time (${hangup.opts.delay} ms)`);
    for (const status of ['ringing', 'busy', 'no_answer', 'canceled', 'in_progress']) {
      const refused = await advance(call.id, { status });
      assert.equal(refused.statusCode, 409, status);
    }
    const failed = json<Call>(await advance(call.id, { status: 'failed' }));
    assert.deepEqual([failed.status, failed.outcome], ['failed', null]);
    assert.deepEqual(await writtenTypes(call.id), ['call.queued', 'call.ringing', 'call.started', 'call.failed']);

    const canceled = await queueCall(still, twin, '+14155550134');
    const response = json<Call>(await advance(canceled.id, { status: 'canceled' }));
    assert.deepEqual([response.status, response.end_reason], ['canceled', 'canceled']);
    assert.deepEqual(timelineOf(response), ['queued', 'canceled']);
    assert.deepEqual(await writtenTypes(canceled.id), ['call.queued', 'call.canceled']);

    const unanswered = await queueCall(still, twin, '+14155550135');
    const noAnswer = json<Call>(await advance(unanswered.id, { status: 'no_answer' }));
    assert.deepEqual(timelineOf(noAnswer), ['queued', 'ringing', 'no_answer']);
    assert.deepEqual(await writtenTypes(unanswered.id), ['call.queued', 'call.ringing', 'call.failed']);
  });

  test('a chosen outcome answers the call if needed and completes it with that outcome, whatever its script', async () => {
    // The busy magic number would never be answered by itself.
    const call = await queueCall(still, twin, '+15005550103');
    const done = json<Call>(await advance(call.id, { outcome: 'booked' }));
    assert.deepEqual([done.status, done.outcome, done.livemode], ['completed', 'booked', false]);
    assert.deepEqual(timelineOf(done), ['queued', 'ringing', 'in_progress', 'completed']);
    assert.ok((done.duration_seconds ?? 0) > 0 && done.cost && done.transcript?.includes('test mode simulation'));
    assert.deepEqual(await writtenTypes(call.id), ['call.queued', 'call.ringing', 'call.started', 'call.completed']);
    assert.equal(((await written(call.id)).at(-1)?.data as { outcome?: string } | undefined)?.outcome, 'booked');

    const bad = await advance(call.id, { status: 'busy', outcome: 'booked' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_request');
  });

  test('an unknown call, or another organization’s, is 404', async () => {
    assert.equal((await advance(newId('call'))).statusCode, 404);
    const otherTwin = twinOf(testIdentity());
    const theirs = await queueCall(still, otherTwin, '+15005550101');
    const response = await advance(theirs.id);
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().error.code, 'not_found');
    assert.equal((await getCall(still, otherTwin, theirs.id)).status, 'queued');
  });

  test('the steps the simulation had scheduled, run later, neither move the call again nor record an event twice', async () => {
    const call = await queueCall(still, twin, '+15005550102');
    await advance(call.id);
    await advance(call.id, { outcome: 'booked' });
    const before = await writtenTypes(call.id);
    // The events went out and left the outbox, as the relay leaves them: a repeat would be a new row.
    await still.deps.prisma.outboxEvent.deleteMany({ where: { aggregateId: call.id } });
    assert.deepEqual(await runEveryStep(call.id), [], 'nothing scheduled for an ended call');
    const after = await getCall(still, twin, call.id);
    assert.deepEqual([after.status, after.outcome], ['completed', 'booked']);
    assert.deepEqual(timelineOf(after), ['queued', 'ringing', 'in_progress', 'completed']);
    assert.deepEqual(await writtenTypes(call.id), []);
    assert.deepEqual(before, ['call.queued', 'call.ringing', 'call.started', 'call.completed']);

    // A step that finds the call where its own earlier run left it (the run died before scheduling) schedules
    // what follows, and records nothing again.
    const ringing = await queueCall(still, twin, '+15005550101');
    await advance(ringing.id);
    await still.deps.prisma.outboxEvent.deleteMany({ where: { aggregateId: ringing.id } });
    const scheduled = await runEveryStep(ringing.id);
    assert.deepEqual(
      scheduled.map((step) => step.step),
      ['answer', 'hangup'],
    );
    assert.deepEqual(await writtenTypes(ringing.id), ['call.started', 'call.completed']);
  });

  test('a helper and the scheduled steps racing for one call: each status reached once, with one event', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const call = await queueCall(still, twin, index % 2 === 0 ? '+15005550101' : '+14155550122');
        const steps = (['ringing', 'answer', 'hangup', 'ringing', 'answer', 'hangup'] as const).map((step) =>
          processSandboxStep(still.deps, still.deps.queues, { kind: 'call', callId: call.id, orgId: twin.org_id, step }),
        );
        const [response] = await Promise.all([
          advance(call.id, { outcome: 'booked' }),
          advance(call.id, { status: 'in_progress' }),
          ...steps,
        ]);
        const types = await writtenTypes(call.id);
        assert.equal(new Set(types).size, types.length, `${call.id}: ${types.join(', ')}`);
        const now = await getCall(still, twin, call.id);
        assert.equal(new Set(timelineOf(now)).size, now.timeline.length, timelineOf(now).join(', '));
        assert.equal(types.length, now.timeline.length, 'one event per status reached');
        return { status: response.statusCode, call: now };
      }),
    );
    for (const { status, call } of outcomes) {
      if (status === 200) assert.deepEqual([call.status, call.outcome], ['completed', 'booked']);
      else assert.equal(status, 409, 'only when a step ended the call first');
    }
  });
});

/** Posts a form to a hook the way Twilio does: signed over the public URL and the sorted parameters. */
function twilioPost(path: string, params: Record<string, string>) {
  const signature = twilioSignature(twilio.authToken, `${publicBaseUrl}${path}`, params);
  return h.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: new URLSearchParams(params).toString(),
  });
}

async function getSms(identity: Identity, id: string): Promise<Sms> {
  return json<Sms>(await h.request(identity, 'GET', `/api/v1/phone/sms/${id}`));
}
