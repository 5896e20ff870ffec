// Test mode as a developer meets it: the typed client with a test key, against a deployment whose carrier is
// Twilio (its local stand-in, as the telephony tests use). A call to each magic number ends as the README's
// table says and its webhooks reach a local receiver with `livemode: false`, verified with the
// `standardwebhooks` package; an SMS to the STOP number is answered STOP; the Twilio stand-in hears nothing of
// it; the live key of the same organization sees none of it, and the test key none of the live data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VoiceApiError, VoiceClient } from '@voice/client';
import { eventually, type Receiver, startReceiver } from '@voice/kit/testing';
import { type TestPhoneNumber, testPhoneNumbers, testStopReplyNumber, testTwinOf } from '@voice/proto';
import { Webhook } from 'standardwebhooks';
import { type FakeTwilio, startFakeTwilio } from '../../../services/telephony/test/support/fake-twilio.js';
import { type Platform, startPlatform } from '../support/harness.js';

interface Delivered {
  type: string;
  livemode: boolean;
  org_id: string;
  data: Record<string, unknown>;
}

const verified = new WeakMap<object, Delivered>();

/**
 * What reached a receiver, each body verified as a receiver would: the standardwebhooks package with the
 * endpoint's secret. Each request is verified once, when the test first looks at it (the waits below look every
 * 50 ms): the package also checks the timestamp against the time of verification, with five minutes'
 * tolerance, which a request verified again at the end of a slow run would outlive.
 */
function verifiedEvents(receiver: Receiver, secret: string): Delivered[] {
  const webhook = new Webhook(secret);
  return receiver.requests.map((request) => {
    let event = verified.get(request);
    if (!event) {
      event = webhook.verify(request.body, request.headers as Record<string, string>) as Delivered;
      verified.set(request, event);
    }
    return event;
  });
}

const finalEvents = new Set(['call.completed', 'call.failed']);

/**
 * Waits until the assertions in `check` hold (work off the request path: the simulator, the deliveries). Each
 * assertion in a check carries its message: without one, node's assert reads and parses this file's source to
 * write it, on the event loop, at the first failure of each call site, which under tsx took up to minutes
 * (kit's `eventually` says why).
 */
const until = (what: string, check: () => void) =>
  eventually(
    what,
    () => {
      check();
      return true;
    },
    { timeoutMs: 120_000 },
  );

describe('test mode with the typed client, against a Twilio deployment', () => {
  let platform: Platform<'telephony' | 'leads' | 'webhooks'>;
  let twilio: FakeTwilio;
  let liveReceiver: Receiver;
  let testReceiver: Receiver;
  let live: VoiceClient;
  let testClient: VoiceClient;
  let liveSecret: string;
  let testSecret: string;
  let orgId: string;

  before(async () => {
    [twilio, liveReceiver, testReceiver] = await Promise.all([startFakeTwilio(), startReceiver(), startReceiver()]);
    platform = await startPlatform({
      services: ['telephony', 'leads', 'webhooks'],
      telephony: {
        TELEPHONY_CARRIER: 'twilio',
        TWILIO_ACCOUNT_SID: twilio.accountSid,
        TWILIO_AUTH_TOKEN: twilio.authToken,
        TWILIO_API_BASE_URL: twilio.url,
      },
    });
    const org = await platform.org({ plan: 'starter', quota: 10_000 });
    orgId = org.orgId;
    const testKey = (await platform.gateway.admin({
      kind: 'key.create',
      orgId: testTwinOf(orgId),
      scope: 'read-write',
      monthlyQuota: 1,
    })) as {
      key: string;
    };
    assert.match(testKey.key, /^vk_test_/);
    live = new VoiceClient({ apiKey: org.key, baseUrl: platform.url });
    testClient = new VoiceClient({ apiKey: testKey.key, baseUrl: platform.url });
    liveSecret = (await live.webhooks.create({ url: liveReceiver.url, event_types: ['*'] })).secret;
    testSecret = (await testClient.webhooks.create({ url: testReceiver.url, event_types: ['*'] })).secret;
  });
  after(async () => {
    await platform?.close();
    await Promise.all([twilio?.close(), liveReceiver?.close(), testReceiver?.close()]);
  });

  test('a call to each magic number ends as documented, with its webhooks, and Twilio hears nothing', async () => {
    const lead = await testClient.leads.create({ name: 'Test lead', phone: '+15005550101' });
    const numbers = Object.keys(testPhoneNumbers).filter((number) => number !== testStopReplyNumber) as TestPhoneNumber[];
    const calls = new Map<string, TestPhoneNumber>();
    for (const number of numbers) {
      const call = await testClient.calls.create({ to: number, ...(number === '+15005550101' ? { lead_id: lead.id } : {}) });
      assert.equal(call.livemode, false);
      calls.set(call.id, number);
    }
    await until('every magic number call to end', () => {
      const ended = verifiedEvents(testReceiver, testSecret).filter((event) => finalEvents.has(event.type));
      assert.equal(ended.length, calls.size, `final call events so far: ${ended.length}`);
    });
    for (const [id, number] of calls) {
      const call = await testClient.calls.get(id);
      const expected = testPhoneNumbers[number];
      assert.deepEqual([call.status, call.outcome], [expected.status, expected.outcome], number);
      assert.equal(call.livemode, false);
      if (expected.status === 'completed') {
        assert.ok(call.transcript, `${number} has a transcript`);
        assert.ok(call.summary, `${number} has a summary`);
      }
      const events = verifiedEvents(testReceiver, testSecret).filter((event) => event.data.call_id === id);
      assert.ok(events.length >= 2, `${number}: queued and final events`);
      for (const event of events) assert.deepEqual([event.livemode, event.org_id], [false, testTwinOf(orgId)]);
    }
    // The qualified number's lead is qualified, and its event reaches the test endpoint too.
    await until('the lead to be qualified', () => {
      const qualified = verifiedEvents(testReceiver, testSecret).filter((event) => event.type === 'lead.qualified');
      assert.equal(qualified[0]?.data.id, lead.id);
    });
    assert.equal(twilio.requests.length, 0, 'the Twilio stand-in received nothing in test mode');
    assert.equal(liveReceiver.requests.length, 0, 'the live endpoint received no test event');
  });

  test('an SMS to the STOP number is answered STOP: an inbound message and a do-not-call entry, in test mode only', async () => {
    const sent = await testClient.sms.send({ to: testStopReplyNumber, body: 'Your appointment is tomorrow at 10.' });
    assert.equal(sent.livemode, false);
    await until('the STOP reply and its do-not-call entry', () => {
      const events = verifiedEvents(testReceiver, testSecret);
      const received = events.find((event) => event.type === 'sms.received');
      assert.equal(received?.data.body, 'STOP');
      assert.ok(
        events.some((event) => event.type === 'dnc.added' && event.data.phone === testStopReplyNumber),
        `no dnc.added for the STOP number among: ${events.map((event) => event.type).join(', ')}`,
      );
    });
    assert.equal((await testClient.dnc.check({ phone: testStopReplyNumber })).listed, true);
    assert.equal((await live.dnc.check({ phone: testStopReplyNumber })).listed, false, 'the live list is untouched');
    assert.equal(twilio.requests.length, 0);
  });

  test('the helpers: an inbound call and an event of any type reach the test endpoint; a live key gets 404', async () => {
    const inbound = await testClient.testHelpers.inboundCall({ from: '+15005550199', outcome: 'booked' });
    assert.deepEqual([inbound.direction, inbound.livemode], ['inbound', false]);
    const advanced = await testClient.testHelpers.advanceCall(inbound.id, { outcome: 'booked' });
    assert.deepEqual([advanced.status, advanced.outcome], ['completed', 'booked']);
    const triggered = await testClient.testHelpers.triggerEvent({ event_type: 'invoice.sent' });
    assert.equal(triggered.event.livemode, false);
    assert.equal(triggered.deliveries.length, 1, 'one delivery, to the test endpoint');
    await until('the triggered event', () => {
      const types = verifiedEvents(testReceiver, testSecret).map((event) => event.type);
      assert.ok(types.includes('invoice.sent'), `invoice.sent not among the ${types.length} received: ${types.join(', ')}`);
    });
    const refused = await live.testHelpers.advanceCall(inbound.id).catch((error: unknown) => error);
    assert.ok(refused instanceof VoiceApiError);
    assert.equal(refused.status, 404);
    assert.equal(twilio.requests.length, 0);
  });

  test('the live key sees none of the test data, the test key none of the live data; live calls do reach Twilio', async () => {
    const liveCall = await live.calls.create({ to: '+14155550142' });
    assert.equal(liveCall.livemode, true);
    await until('the live call at Twilio', () =>
      assert.ok(
        twilio.requests.some((request) => request.form.get('To') === '+14155550142'),
        `not among the ${twilio.requests.length} requests Twilio got`,
      ),
    );
    const liveIds: string[] = [];
    for await (const call of live.calls.list()) liveIds.push(call.id);
    const testIds: string[] = [];
    for await (const call of testClient.calls.list()) testIds.push(call.id);
    assert.deepEqual(liveIds, [liveCall.id]);
    assert.ok(testIds.length >= 7);
    assert.equal(testIds.includes(liveCall.id), false);
    const notFound = await live.calls.get(testIds[0] as string).catch((error: unknown) => error);
    assert.equal((notFound as VoiceApiError).status, 404);
    const notFoundEither = await testClient.calls.get(liveCall.id).catch((error: unknown) => error);
    assert.equal((notFoundEither as VoiceApiError).status, 404);
    const smsOfLive: string[] = [];
    for await (const message of live.sms.list()) smsOfLive.push(message.id);
    assert.deepEqual(smsOfLive, []);
    await until('the live call.queued webhook', () =>
      assert.ok(
        verifiedEvents(liveReceiver, liveSecret).some((event) => event.type === 'call.queued'),
        'no call.queued at the live endpoint yet',
      ),
    );
    for (const event of verifiedEvents(liveReceiver, liveSecret)) assert.deepEqual([event.livemode, event.org_id], [true, orgId]);
    for (const event of verifiedEvents(testReceiver, testSecret)) assert.equal(event.livemode, false);
  });
});
