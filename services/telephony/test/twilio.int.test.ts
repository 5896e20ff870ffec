import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, testIdentity } from '@voice/kit/testing';
import type { Call, EventEnvelope, Sms } from '@voice/proto';
import { twilioSignature } from '../src/carrier/twilio-signature.js';
import { dialCall } from '../src/domain/calls.js';
import { type FakeTwilio, invalidNumber, startFakeTwilio } from './support/fake-twilio.js';
import { collectEvents, type Harness, startHarness } from './support/harness.js';

const publicBaseUrl = 'https://api.example.test';
const owner = testIdentity();
const ownedNumber = '+15005550100';
let twilio: FakeTwilio;
let h: Harness;
const collectedTypes = [
  'call.queued',
  'call.ringing',
  'call.started',
  'call.completed',
  'call.failed',
  'sms.sent',
  'sms.delivered',
  'sms.received',
  'dnc.added',
  'dnc.removed',
] as const;
let events: EventEnvelope<(typeof collectedTypes)[number]>[];

before(async () => {
  twilio = await startFakeTwilio();
  h = await startHarness({
    TELEPHONY_CARRIER: 'twilio',
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_API_BASE_URL: twilio.url,
    PUBLIC_BASE_URL: publicBaseUrl,
    DIAL_MAX_ATTEMPTS: '3',
    DIAL_BACKOFF_MS: '10',
    TELEPHONY_NUMBER_ORGS: `${ownedNumber}=${owner.org_id}`,
  });
  events = await collectEvents(h.deps.bus, 'test-twilio', collectedTypes);
});
after(async () => {
  await h.close();
  await twilio.close();
});

const org = testIdentity();

/** Posts a form to a hook the way Twilio does: signed over the public URL and the sorted parameters. */
function twilioPost(path: string, params: Record<string, string>, options: { token?: string } = {}) {
  const signature = twilioSignature(options.token ?? twilio.authToken, `${publicBaseUrl}${path}`, params);
  return h.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: new URLSearchParams(params).toString(),
  });
}

const callCreates = () => twilio.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/Calls.json'));
const getCall = async (id: string) => (await h.request(org, 'GET', `/api/v1/phone/calls/${id}`)).json() as Call;

async function placedCall(to: string) {
  const queued = (await h.request(org, 'POST', '/api/v1/phone/calls', { to })).json() as Call;
  const sid = await eventually(
    'the carrier sid',
    async () => (await h.deps.prisma.call.findUnique({ where: { id: queued.id } }))?.carrierCallId ?? undefined,
    { timeoutMs: 10_000 },
  );
  return { id: queued.id, sid };
}

describe('calls through Twilio', () => {
  test('places the call with Twilio and follows its signed status callbacks to completed', async () => {
    const { id, sid } = await placedCall('+14155550101');
    const create = callCreates().find((request) => request.form.get('To') === '+14155550101');
    assert.ok(create, 'Twilio got a create-call request');
    assert.equal(create.form.get('From'), '+15005550006');
    assert.equal(create.form.get('StatusCallback'), `${publicBaseUrl}/api/hooks/twilio/calls/status?call_id=${id}`);
    assert.deepEqual(create.form.getAll('StatusCallbackEvent'), ['initiated', 'ringing', 'answered', 'completed']);

    const path = `/api/hooks/twilio/calls/status?call_id=${id}`;
    const base = { AccountSid: twilio.accountSid, CallSid: sid, From: '+15005550006', To: '+14155550101' };
    assert.equal((await twilioPost(path, { ...base, CallStatus: 'ringing' })).statusCode, 204);
    assert.equal((await getCall(id)).status, 'ringing');
    await twilioPost(path, { ...base, CallStatus: 'in-progress' });
    // A late, out-of-order "ringing" must not move the call back.
    await twilioPost(path, { ...base, CallStatus: 'ringing' });
    assert.equal((await getCall(id)).status, 'in_progress');
    await twilioPost(path, { ...base, CallStatus: 'completed', CallDuration: '73', AnsweredBy: 'machine_end_beep' });
    const done = await getCall(id);
    assert.equal(done.status, 'completed');
    assert.equal(done.duration_seconds, 73);
    assert.equal(done.outcome, 'voicemail');
    assert.ok(done.started_at && done.ended_at);
    const types = await eventually('the call to complete', () => {
      const mine = events.filter((event) => 'call_id' in event.data && event.data.call_id === id).map((event) => event.type);
      return mine.includes('call.completed') ? mine : undefined;
    });
    assert.deepEqual(types, ['call.queued', 'call.ringing', 'call.started', 'call.completed']);
  });

  test('callbacks with a wrong or missing signature are refused and change nothing', async () => {
    const { id, sid } = await placedCall('+14155550102');
    const path = `/api/hooks/twilio/calls/status?call_id=${id}`;
    const forged = await twilioPost(path, { CallSid: sid, CallStatus: 'completed' }, { token: 'not-the-auth-token-0000' });
    assert.equal(forged.statusCode, 403);
    const unsigned = await h.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `CallSid=${sid}&CallStatus=completed`,
    });
    assert.equal(unsigned.statusCode, 403);
    // Signed for another URL (another call) does not verify either.
    const params = { CallSid: sid, CallStatus: 'completed' };
    const replayed = await h.app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(
          twilio.authToken,
          `${publicBaseUrl}/api/hooks/twilio/calls/status?call_id=call_other0000`,
          params,
        ),
      },
      payload: new URLSearchParams(params).toString(),
    });
    assert.equal(replayed.statusCode, 403);
    assert.equal((await getCall(id)).status, 'queued');
  });

  test('canceling a queued call the carrier already has cancels it at the carrier too', async () => {
    const { id, sid } = await placedCall('+14155550105');
    const response = await h.request(org, 'POST', `/api/v1/phone/calls/${id}/cancel`);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().status, 'canceled');
    const cancel = twilio.requests.find((request) => request.path.endsWith(`/Calls/${sid}.json`));
    assert.equal(cancel?.form.get('Status'), 'canceled');
    // Twilio's own "canceled" callback afterwards changes nothing and publishes nothing new.
    await twilioPost(`/api/hooks/twilio/calls/status?call_id=${id}`, { CallSid: sid, CallStatus: 'canceled' });
    assert.equal((await getCall(id)).status, 'canceled');
  });

  test('canceling a ringing call cancels it at Twilio first; a Twilio outage changes nothing; an answered call is a conflict', async () => {
    const { id, sid } = await placedCall('+14155550106');
    const path = `/api/hooks/twilio/calls/status?call_id=${id}`;
    assert.equal((await twilioPost(path, { CallSid: sid, CallStatus: 'ringing' })).statusCode, 204);
    twilio.failNext(1, 503);
    const outage = await h.request(org, 'POST', `/api/v1/phone/calls/${id}/cancel`);
    assert.equal(outage.statusCode, 503, outage.body);
    assert.equal(outage.json().error.code, 'unavailable');
    assert.equal((await getCall(id)).status, 'ringing');

    const canceled = await h.request(org, 'POST', `/api/v1/phone/calls/${id}/cancel`);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled');
    assert.deepEqual(
      canceled.json().timeline.map((change: { status: string }) => change.status),
      ['queued', 'ringing', 'canceled'],
    );
    const updates = twilio.requests.filter((request) => request.path.endsWith(`/Calls/${sid}.json`));
    assert.deepEqual(
      updates.map((request) => request.form.get('Status')),
      ['canceled', 'canceled'],
      'the failed try and the one that worked',
    );
    // A late "answered" from the carrier cannot revive it.
    await twilioPost(path, { CallSid: sid, CallStatus: 'in-progress' });
    assert.equal((await getCall(id)).status, 'canceled');

    const answered = await placedCall('+14155550107');
    const answeredPath = `/api/hooks/twilio/calls/status?call_id=${answered.id}`;
    await twilioPost(answeredPath, { CallSid: answered.sid, CallStatus: 'in-progress' });
    const refused = await h.request(org, 'POST', `/api/v1/phone/calls/${answered.id}/cancel`);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json().error.message, /in progress/);
    assert.equal(twilio.requests.filter((request) => request.path.endsWith(`/Calls/${answered.sid}.json`)).length, 0, 'Twilio not asked');
  });

  test('retries carrier outages with back-off, then places the call once', async () => {
    const before = callCreates().length;
    twilio.failNext(2, 503);
    const { id } = await placedCall('+14155550103');
    const attempts = callCreates()
      .slice(before)
      .filter((request) => request.form.get('To') === '+14155550103');
    assert.equal(attempts.length, 3);
    assert.equal(twilio.calls.size > 0, true);
    const row = await h.deps.prisma.call.findUnique({ where: { id } });
    assert.equal(row?.dialAttempts, 3);
  });

  test('a carrier refusal fails the call at once, with call.failed', async () => {
    const queued = (await h.request(org, 'POST', '/api/v1/phone/calls', { to: invalidNumber })).json() as Call;
    const failed = await eventually('the call to fail', async () => {
      const call = await getCall(queued.id);
      return call.status === 'failed' ? call : undefined;
    });
    assert.equal(failed.end_reason, 'twilio_21211');
    await eventually('call.failed', () => events.find((event) => event.type === 'call.failed' && event.data.call_id === queued.id));
    assert.equal(callCreates().filter((request) => request.form.get('To') === invalidNumber).length, 1);
  });

  test('a dial retried after a crash adopts the call Twilio already has instead of dialing twice', async () => {
    const { id, sid } = await placedCall('+14155550104');
    // The worker "died" after Twilio accepted the call and before the sid was written.
    await h.deps.prisma.call.update({ where: { id }, data: { carrierCallId: null } });
    const creates = callCreates().length;
    const result = await dialCall(h.deps, org.org_id, id);
    assert.equal(result, 'adopted');
    assert.equal(callCreates().length, creates);
    assert.equal((await h.deps.prisma.call.findUnique({ where: { id } }))?.carrierCallId, sid);
    // And a duplicate job for a placed call does nothing at all.
    assert.equal(await dialCall(h.deps, org.org_id, id), 'skipped');
    assert.equal(callCreates().length, creates);
  });
});

describe('inbound calls', () => {
  test("an inbound call to an owned number is recorded once for the number's organization and followed to completion", async () => {
    const sid = `CA${'1'.repeat(32)}`;
    const params = { CallSid: sid, From: '+14155550701', To: ownedNumber, CallStatus: 'ringing', Direction: 'inbound' };
    const answer = await twilioPost('/api/hooks/twilio/calls/inbound', params);
    assert.equal(answer.statusCode, 200);
    assert.match(answer.body, /<Response><Say>/);
    // Twilio retries a webhook it did not see answered: still one call.
    assert.equal((await twilioPost('/api/hooks/twilio/calls/inbound', params)).statusCode, 200);
    const list = (await h.request(owner, 'GET', '/api/v1/phone/calls?direction=inbound')).json();
    assert.equal(list.data.length, 1);
    const call = list.data[0] as Call;
    assert.deepEqual(
      [call.direction, call.status, call.source, call.from, call.to],
      ['inbound', 'ringing', 'inbound', '+14155550701', ownedNumber],
    );

    // The number's status callback names only the sid.
    await twilioPost('/api/hooks/twilio/calls/status', { CallSid: sid, CallStatus: 'in-progress' });
    await twilioPost('/api/hooks/twilio/calls/status', { CallSid: sid, CallStatus: 'completed', CallDuration: '42' });
    const done = (await h.request(owner, 'GET', `/api/v1/phone/calls/${call.id}`)).json() as Call;
    assert.equal(done.status, 'completed');
    assert.equal(done.duration_seconds, 42);
    const types = await eventually('the inbound call to complete', () => {
      const mine = events.filter((event) => 'call_id' in event.data && event.data.call_id === call.id).map((event) => event.type);
      return mine.includes('call.completed') ? mine : undefined;
    });
    assert.deepEqual(types, ['call.ringing', 'call.started', 'call.completed']);
    // Nobody else sees it.
    assert.equal((await h.request(org, 'GET', `/api/v1/phone/calls/${call.id}`)).statusCode, 404);
  });

  test('a call to a number nobody owns or talks from is rejected and not recorded', async () => {
    const response = await twilioPost('/api/hooks/twilio/calls/inbound', {
      CallSid: `CA${'2'.repeat(32)}`,
      From: '+14155550702',
      To: '+15005550199',
    });
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /<Reject/);
    assert.equal(await h.deps.prisma.call.count({ where: { carrierCallId: `CA${'2'.repeat(32)}` } }), 0);
  });
});

describe('SMS through Twilio', () => {
  test('an inbound message delivered twice by the carrier is filed once', async () => {
    const params = { MessageSid: `SM${'c'.repeat(32)}`, From: '+14155550703', To: ownedNumber, Body: 'Can you call me back?' };
    await twilioPost('/api/hooks/twilio/sms/inbound', params);
    await twilioPost('/api/hooks/twilio/sms/inbound', params);
    const list = (await h.request(owner, 'GET', '/api/v1/phone/sms?direction=inbound')).json();
    assert.equal(list.data.length, 1);
    assert.equal(list.data[0].body, 'Can you call me back?');
    assert.equal(list.data[0].status, 'received');
  });

  test('sends, then follows the delivery report', async () => {
    const response = await h.request(org, 'POST', '/api/v1/phone/sms', {
      to: '+14155550201',
      body: 'Your appointment is confirmed for 10:00.',
    });
    assert.equal(response.statusCode, 201, response.body);
    const queued = response.json() as Sms;
    assert.equal(queued.segments, 1);
    const sent = await eventually('the message to be sent', async () => {
      const sms = await h.deps.prisma.sms.findUnique({ where: { id: queued.id } });
      return sms?.status === 'sent' ? sms : undefined;
    });
    const request = twilio.requests.find((r) => r.path.endsWith('/Messages.json') && r.form.get('To') === '+14155550201');
    assert.equal(request?.form.get('Body'), 'Your appointment is confirmed for 10:00.');
    assert.equal(request?.form.get('StatusCallback'), `${publicBaseUrl}/api/hooks/twilio/sms/status?sms_id=${queued.id}`);
    const report = await twilioPost(`/api/hooks/twilio/sms/status?sms_id=${queued.id}`, {
      MessageSid: sent.carrierMessageId ?? '',
      MessageStatus: 'delivered',
    });
    assert.equal(report.statusCode, 204);
    const delivered = (await h.request(org, 'GET', `/api/v1/phone/sms/${queued.id}`)).json() as Sms;
    assert.equal(delivered.status, 'delivered');
    assert.ok(delivered.delivered_at);
    await eventually('sms.delivered', () => events.find((event) => event.type === 'sms.delivered' && event.data.sms_id === queued.id));
  });

  test('an inbound STOP lists the sender with source sms_stop, and further messages are refused', async () => {
    const identity = testIdentity();
    const them = '+14155550202';
    const ours = '+15005550006';
    assert.equal(
      (await h.request(identity, 'POST', '/api/v1/phone/sms', { to: them, body: 'Hi! Reply STOP to opt out.' })).statusCode,
      201,
    );
    const inbound = await twilioPost('/api/hooks/twilio/sms/inbound', {
      MessageSid: `SM${'a'.repeat(32)}`,
      From: them,
      To: ours,
      Body: ' stop ',
    });
    assert.equal(inbound.statusCode, 200);
    assert.match(String(inbound.headers['content-type']), /xml/);
    assert.match(inbound.body, /<Response><\/Response>/);

    const check = (await h.request(identity, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(them)}`)).json();
    assert.equal(check.listed, true);
    assert.deepEqual(check.channels, ['sms']);
    assert.equal(check.entries[0].source, 'sms_stop');
    const refused = await h.request(identity, 'POST', '/api/v1/phone/sms', { to: them, body: 'One more thing' });
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.code, 'dnc_blocked');
    const received = await eventually('sms.received', () =>
      events.find((event): event is EventEnvelope<'sms.received'> => event.type === 'sms.received' && event.org_id === identity.org_id),
    );
    assert.equal(received.data.body, ' stop ');
    await eventually('dnc.added', () =>
      events.find((event) => event.type === 'dnc.added' && event.org_id === identity.org_id && event.data.source === 'sms_stop'),
    );

    // START lifts what STOP added.
    await twilioPost('/api/hooks/twilio/sms/inbound', { MessageSid: `SM${'b'.repeat(32)}`, From: them, To: ours, Body: 'START' });
    const after = (await h.request(identity, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(them)}`)).json();
    assert.equal(after.listed, false);
    await eventually('dnc.removed', () => events.find((event) => event.type === 'dnc.removed' && event.org_id === identity.org_id));
  });

  test('a STOP whose first delivery failed after it was filed still opts the sender out when Twilio retries', async (t) => {
    const identity = testIdentity();
    const them = '+14155550204';
    const ours = '+15005550006';
    assert.equal((await h.request(identity, 'POST', '/api/v1/phone/sms', { to: them, body: 'Reply STOP to opt out.' })).statusCode, 201);
    await eventually('sms.sent', () => events.find((event) => event.type === 'sms.sent' && event.org_id === identity.org_id));
    // The process fails right after the message is filed with its event, before the opt-out is applied
    // (the first commit that wakes the outbox relay is the filing).
    const nudge = h.deps.outbox.nudge.bind(h.deps.outbox);
    let failNext = true;
    h.deps.outbox.nudge = () => {
      if (failNext) {
        failNext = false;
        throw new Error('simulated failure after filing');
      }
      nudge();
    };
    t.after(async () => {
      h.deps.outbox.nudge = nudge;
    });
    const params = { MessageSid: `SM${'e'.repeat(32)}`, From: them, To: ours, Body: 'STOP' };
    const first = await twilioPost('/api/hooks/twilio/sms/inbound', params);
    assert.notEqual(first.statusCode, 200, 'Twilio is told to retry');
    const check = async () =>
      (await h.request(identity, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(them)}`)).json() as { listed: boolean };
    assert.equal((await check()).listed, false, 'the first delivery stopped before the opt-out');
    assert.equal((await twilioPost('/api/hooks/twilio/sms/inbound', params)).statusCode, 200);
    assert.equal((await check()).listed, true, 'the retry applies it');
    h.deps.outbox.nudge();
    await eventually('sms.received', () => events.find((event) => event.type === 'sms.received' && event.org_id === identity.org_id));
    assert.equal(events.filter((event) => event.type === 'sms.received' && event.org_id === identity.org_id).length, 1, 'filed once');
    const refused = await h.request(identity, 'POST', '/api/v1/phone/sms', { to: them, body: 'more marketing' });
    assert.equal(refused.statusCode, 422);
  });

  test('an inbound message with a bad signature is refused', async () => {
    const response = await twilioPost(
      '/api/hooks/twilio/sms/inbound',
      { From: '+14155550203', To: '+15005550006', Body: 'STOP' },
      { token: 'wrong-token-000000000' },
    );
    assert.equal(response.statusCode, 403);
  });
});
