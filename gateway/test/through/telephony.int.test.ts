// Telephony through the gateway: calls, SMS and the do-not-call list, driven with fetch and a Bearer key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VoiceApiError, VoiceClient } from '@voice/client';
import { eventually } from '@voice/kit/testing';
import {
  assertError,
  assertRateLimitHeaders,
  assertRecord,
  type Client,
  client,
  idemKey,
  missingId,
  ok,
  type Platform,
  startPlatform,
  walk,
} from '../support/harness.js';

const phone = (n: number) => `+1415555${String(1000 + n).padStart(4, '0')}`;
const enc = encodeURIComponent;

describe('telephony through the gateway', () => {
  let platform: Platform;
  let org: { orgId: string; keyId: string; key: string };
  let api: Client;
  let readApi: Client;
  let other: Client;
  let callId: string;
  let smsId: string;
  let dncId: string;

  before(async () => {
    platform = await startPlatform();
    org = await platform.org();
    api = client(platform.url, org.key);
    const readKey = (await platform.gateway.admin({ kind: 'key.create', orgId: org.orgId, scope: 'read', monthlyQuota: 10_000 })) as {
      key: string;
    };
    readApi = client(platform.url, readKey.key);
    other = client(platform.url, (await platform.org()).key);
  });
  after(async () => {
    await platform?.close();
  });

  test('calls: queue with an Idempotency-Key twice gives one call and the same response; another body is 409', async () => {
    const key = idemKey('call');
    const body = { to: phone(1), metadata: { sandbox_status: 'completed', sandbox_outcome: 'booked' } };
    const first = await api.post('/api/v1/phone/calls', body, { idempotencyKey: key });
    const call = ok(first, 201);
    assertRecord(call, 'call', 'call');
    assert.equal(call.status, 'queued');
    assert.equal(call.direction, 'outbound');
    assert.equal(call.to, phone(1));
    assert.match(call.from, /^\+[1-9]\d{6,14}$/);
    assert.equal(call.source, 'api');
    callId = call.id;

    const again = await api.post('/api/v1/phone/calls', body, { idempotencyKey: key });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, call, 'the replay is the first response');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');

    const conflict = await api.post('/api/v1/phone/calls', { to: phone(2) }, { idempotencyKey: key });
    assertError(conflict, 409, 'idempotency_conflict');

    const listed = ok(await api.get('/api/v1/phone/calls?direction=outbound')).data.filter((c: { to: string }) => c.to === phone(1));
    assert.equal(listed.length, 1, 'one call for two requests with one key');
  });

  test('a sandbox call reaches completed when polled through the gateway, and can no longer be canceled', async () => {
    const done = await eventually('the sandbox call to finish', async () => {
      const call = ok(await api.get(`/api/v1/phone/calls/${callId}`));
      return call.status === 'completed' ? call : undefined;
    });
    assertRecord(done, 'call', 'call');
    assert.equal(done.outcome, 'booked');
    assert.ok(done.duration_seconds > 0);
    assert.match(done.transcript, /sandbox simulation/);
    assert.match(done.started_at, /Z$/);
    assert.match(done.ended_at, /Z$/);
    assert.equal(typeof done.cost.amount, 'number');
    assert.match(done.cost.currency, /^[A-Z]{3}$/);

    const cancel = await api.post(`/api/v1/phone/calls/${callId}/cancel`);
    assertError(cancel, 409, 'conflict');

    const stats = ok(await api.get('/api/v1/phone/calls/stats'));
    assert.equal(stats.object, 'call_stats');
    assert.ok(stats.total >= 1);
    assert.ok(stats.by_outcome.booked >= 1);
  });

  test('sms: send with an Idempotency-Key twice gives one message; another body is 409; list and get', async () => {
    const key = idemKey('sms');
    const body = { to: phone(3), body: 'Your appointment is tomorrow at 10.' };
    const first = await api.post('/api/v1/phone/sms', body, { idempotencyKey: key });
    const sms = ok(first, 201);
    assertRecord(sms, 'sms', 'sms');
    assert.equal(sms.to, phone(3));
    assert.equal(sms.segments, 1);
    assert.equal(sms.direction, 'outbound');
    smsId = sms.id;

    const again = await api.post('/api/v1/phone/sms', body, { idempotencyKey: key });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, sms);

    assertError(
      await api.post('/api/v1/phone/sms', { ...body, body: 'Another text' }, { idempotencyKey: key }),
      409,
      'idempotency_conflict',
    );

    const list = ok(await api.get('/api/v1/phone/sms'));
    assert.deepEqual(
      list.data.map((item: { id: string }) => item.id),
      [smsId],
    );
    const got = ok(await api.get(`/api/v1/phone/sms/${smsId}`));
    assertRecord(got, 'sms', 'sms');
    assert.equal(got.body, body.body);
  });

  test('dnc: add (201, then 200 with the same entry), check, list, remove; calls and SMS to a listed number are 422 dnc_blocked', async () => {
    const added = await api.post('/api/v1/phone/dnc', { phone: phone(4), reason: 'asked not to be called' });
    const entry = ok(added, 201);
    assertRecord(entry, 'dnc', 'dnc_entry');
    assert.equal(entry.channel, 'all');
    assert.equal(entry.source, 'api');
    dncId = entry.id;
    const repeat = ok(await api.post('/api/v1/phone/dnc', { phone: phone(4), reason: 'asked not to be called' }), 200);
    assert.equal(repeat.id, entry.id);

    const check = ok(await api.get(`/api/v1/phone/dnc/check?phone=${enc(phone(4))}`));
    assert.equal(check.listed, true);
    assert.deepEqual(check.blocks, { voice: true, sms: true });

    const blockedCall = await api.post('/api/v1/phone/calls', { to: phone(4) }, { idempotencyKey: idemKey('dnc-call') });
    assertError(blockedCall, 422, 'dnc_blocked', 'to');
    const blockedSms = await api.post('/api/v1/phone/sms', { to: phone(4), body: 'hello' }, { idempotencyKey: idemKey('dnc-sms') });
    assertError(blockedSms, 422, 'dnc_blocked', 'to');
    // Nothing was stored for the refused requests.
    const calls = ok(await api.get('/api/v1/phone/calls?limit=100')).data;
    assert.equal(calls.filter((c: { to: string }) => c.to === phone(4)).length, 0);

    // A voice-only entry blocks calls, not messages.
    const voiceOnly = ok(await api.post('/api/v1/phone/dnc', { phone: phone(5), channel: 'voice' }), 201);
    assertError(await api.post('/api/v1/phone/calls', { to: phone(5) }), 422, 'dnc_blocked');
    ok(await api.post('/api/v1/phone/sms', { to: phone(5), body: 'text is fine' }), 201);

    const list = ok(await api.get(`/api/v1/phone/dnc?phone=${enc(phone(4))}`));
    assert.deepEqual(
      list.data.map((item: { id: string }) => item.id),
      [dncId],
    );

    const removed = ok(await api.delete(`/api/v1/phone/dnc/${voiceOnly.id}`));
    assert.deepEqual(removed, { id: voiceOnly.id, object: 'dnc_entry', deleted: true });
    assertError(await api.delete(`/api/v1/phone/dnc/${voiceOnly.id}`), 404, 'not_found');
    const unblocked = await api.post('/api/v1/phone/calls', { to: phone(5), metadata: { sandbox_status: 'busy' } });
    ok(unblocked, 201);
  });

  test('cursor pagination walks calls and the DNC list over three pages with no duplicate and no gap', async () => {
    const fresh = await platform.org();
    const paged = client(platform.url, fresh.key);
    const created: string[] = [];
    for (let n = 0; n < 7; n++) {
      created.push(ok(await paged.post('/api/v1/phone/dnc', { phone: phone(100 + n), channel: 'sms' }), 201).id);
    }
    const dnc = await walk(paged, '/api/v1/phone/dnc', 3);
    assert.equal(dnc.pages, 3);
    assert.deepEqual(dnc.ids, [...created].reverse(), 'newest first, every entry once');

    const calls: string[] = [];
    for (let n = 0; n < 7; n++) {
      calls.push(ok(await paged.post('/api/v1/phone/calls', { to: phone(200 + n), metadata: { sandbox_status: 'busy' } }), 201).id);
    }
    const walked = await walk(paged, '/api/v1/phone/calls', 3);
    assert.equal(walked.pages, 3);
    assert.deepEqual([...walked.ids].sort(), [...calls].sort());
    assert.deepEqual(walked.ids, [...calls].reverse());

    // A cursor is valid only with the filters it was made for.
    const first = ok(await paged.get('/api/v1/phone/calls?limit=3&direction=outbound'));
    assert.ok(first.next_cursor);
    assertError(await paged.get(`/api/v1/phone/calls?limit=3&direction=inbound&cursor=${enc(first.next_cursor)}`), 400, 'invalid_cursor');
  });

  test('every success carries X-RateLimit-* and Request-Id; Remaining drops by one per call', async () => {
    const metered = await platform.org({ quota: 40 });
    const m = client(platform.url, metered.key);
    await assertRateLimitHeaders(
      [
        () => m.get('/api/v1/phone/calls'),
        () => m.get('/api/v1/phone/sms'),
        () => m.post('/api/v1/phone/dnc', { phone: phone(300) }),
        () => m.get('/api/v1/phone/dnc'),
        () => m.get(`/api/v1/phone/dnc/check?phone=${enc(phone(300))}`),
      ],
      40,
    );
  });

  test('a read key gets 403 forbidden_scope on every write route and succeeds on every read route', async () => {
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/phone/calls', { to: phone(400) }],
      ['POST', `/api/v1/phone/calls/${callId}/cancel`, undefined],
      ['POST', '/api/v1/phone/sms', { to: phone(400), body: 'hi' }],
      ['POST', '/api/v1/phone/dnc', { phone: phone(400) }],
      ['DELETE', `/api/v1/phone/dnc/${dncId}`, undefined],
    ];
    const usedBefore = ok(await readApi.get('/api/v1/usage')).monthly.used;
    for (const [method, path, body] of writes) {
      const response = await readApi.call(method, path, body === undefined ? {} : { body, idempotencyKey: idemKey('read') });
      assertError(response, 403, 'forbidden_scope');
    }
    // A refused request consumes nothing: only the usage call itself counted.
    assert.equal(ok(await readApi.get('/api/v1/usage')).monthly.used, usedBefore + 1);
    // Nothing changed.
    assert.equal(ok(await api.get(`/api/v1/phone/dnc/check?phone=${enc(phone(400))}`)).listed, false);
    assert.equal(ok(await api.get(`/api/v1/phone/dnc/check?phone=${enc(phone(4))}`)).listed, true);

    const reads = [
      '/api/v1/phone/calls',
      '/api/v1/phone/calls/stats',
      `/api/v1/phone/calls/${callId}`,
      '/api/v1/phone/sms',
      `/api/v1/phone/sms/${smsId}`,
      '/api/v1/phone/dnc',
      `/api/v1/phone/dnc/check?phone=${enc(phone(4))}`,
    ];
    for (const path of reads) ok(await readApi.get(path));
  });

  test("another organization gets 404 not_found for the first one's ids and empty lists", async () => {
    // Its lead too: a call or SMS naming it is refused, and nothing is written.
    const lead = ok(await api.post('/api/v1/leads', { name: 'Not yours' }), 201);
    assertError(await other.post('/api/v1/phone/calls', { to: phone(30), lead_id: lead.id }), 404, 'not_found', 'lead_id');
    assertError(await other.post('/api/v1/phone/sms', { to: phone(30), body: 'Hello', lead_id: lead.id }), 404, 'not_found', 'lead_id');
    assertError(await other.get(`/api/v1/phone/calls/${callId}`), 404, 'not_found');
    assertError(await other.post(`/api/v1/phone/calls/${callId}/cancel`), 404, 'not_found');
    assertError(await other.get(`/api/v1/phone/sms/${smsId}`), 404, 'not_found');
    assertError(await other.delete(`/api/v1/phone/dnc/${dncId}`), 404, 'not_found');
    for (const path of ['/api/v1/phone/calls', '/api/v1/phone/sms', '/api/v1/phone/dnc']) {
      // These lists page both ways (prev_cursor), for the console.
      assert.deepEqual(ok(await other.get(path)), { data: [], has_more: false, next_cursor: null, prev_cursor: null });
    }
    // The first organization's number is not on the other's list.
    assert.equal(ok(await other.get(`/api/v1/phone/dnc/check?phone=${enc(phone(4))}`)).listed, false);
    assert.equal(ok(await api.get(`/api/v1/phone/dnc/check?phone=${enc(phone(4))}`)).listed, true);
  });

  test('bad input is a 4xx in the envelope, never a 500', async () => {
    assertError(await api.call('POST', '/api/v1/phone/calls', { raw: '{"to": "+14155551234",' }), 400, 'invalid_request');
    assertError(await api.call('POST', '/api/v1/phone/sms', { raw: 'not json' }), 400, 'invalid_request');
    assertError(await api.post('/api/v1/phone/calls', { to: 14155551234 }), 400, 'invalid_request', 'to');
    assertError(await api.post('/api/v1/phone/calls', { to: '555-1234' }), 400, 'invalid_request', 'to');
    assertError(await api.post('/api/v1/phone/sms', { to: phone(6), body: 42 }), 400, 'invalid_request', 'body');
    assertError(await api.post('/api/v1/phone/calls', { to: phone(6), surprise: true }), 400, 'invalid_request');
    assertError(await api.post('/api/v1/phone/dnc', { phone: phone(6), channel: 'fax' }), 400, 'invalid_request', 'channel');
    assertError(await api.get('/api/v1/phone/calls?limit=0'), 400, 'invalid_request', 'limit');
    assertError(await api.get('/api/v1/phone/calls?direction=sideways'), 400, 'invalid_request', 'direction');
    assertError(await api.get('/api/v1/phone/calls/not-an-id'), 400, 'invalid_request', 'id');
    assertError(await api.get(`/api/v1/phone/calls/${missingId('call')}`), 404, 'not_found');
    assertError(await api.get(`/api/v1/phone/sms/${missingId('sms')}`), 404, 'not_found');
    assertError(await api.delete(`/api/v1/phone/dnc/${missingId('dnc')}`), 404, 'not_found');
    assertError(await api.post(`/api/v1/phone/calls/${missingId('call')}/cancel`), 404, 'not_found');
    for (const path of ['/api/v1/phone/calls', '/api/v1/phone/sms', '/api/v1/phone/dnc']) {
      assertError(await api.get(`${path}?cursor=bm90LWEtY3Vyc29y`), 400, 'invalid_cursor');
    }
    assertError(
      await api.post('/api/v1/phone/sms', { to: phone(6), body: 'x'.repeat(100_000) }, { idempotencyKey: idemKey('big') }),
      413,
      'payload_too_large',
    );
    assertError(await api.post('/api/v1/phone/sms', { to: phone(6), body: 'x'.repeat(2_000) }), 400, 'invalid_request', 'body');
    assertError(await api.post('/api/v1/phone/calls', { to: phone(6) }, { idempotencyKey: 'bad key with spaces' }), 400, 'invalid_request');
  });

  test('@voice/client: calls, SMS and the do-not-call list on the real stack: creates, every page, defaults, errors, quota figures', async () => {
    const metered = await platform.org({ quota: 50 });
    const voice = new VoiceClient({ apiKey: metered.key, baseUrl: platform.url });

    // A create carries an Idempotency-Key of the client's own; one given is sent as is, so a repeat is one call.
    const call = await voice.calls.create(
      { to: phone(701), metadata: { sandbox_status: 'completed' } },
      { idempotencyKey: idemKey('client-call') },
    );
    assert.equal(call.status, 'queued');
    const again = await voice.calls.create(
      { to: phone(701), metadata: { sandbox_status: 'completed' } },
      { idempotencyKey: idemKey('client-call') },
    );
    assert.notEqual(again.id, call.id, 'another key, another call');
    const sms = await voice.sms.send({ to: phone(702), body: 'Sent by the typed client.' });
    assert.equal((await voice.sms.get(sms.id)).body, 'Sent by the typed client.');

    // Every page, through the async iterator, with the filter on each page.
    for (let n = 0; n < 3; n++) await voice.calls.create({ to: phone(710 + n) });
    const outbound: string[] = [];
    for await (const listed of voice.calls.list({ direction: 'outbound', limit: 2 })) outbound.push(listed.id);
    assert.equal(outbound.length, 5);
    assert.equal(new Set(outbound).size, 5);
    assert.ok(outbound.includes(call.id) && outbound.includes(again.id));
    const sent: string[] = [];
    for await (const message of voice.sms.list()) sent.push(message.id);
    assert.deepEqual(sent, [sms.id]);

    // The do-not-call entry's channel has a default, so the typed call leaves it out.
    const entry = await voice.dnc.add({ phone: phone(703) });
    assert.equal(entry.channel, 'all');
    assert.equal((await voice.dnc.check({ phone: phone(703) })).listed, true);
    const refused = await voice.calls.create({ to: phone(703) }).catch((error: unknown) => error);
    assert.ok(refused instanceof VoiceApiError);
    assert.equal(refused.status, 422);
    assert.equal(refused.code, 'dnc_blocked');
    assert.equal(refused.param, 'to');
    assert.match(refused.request_id ?? '', /^req_/);
    assert.deepEqual(await voice.dnc.remove(entry.id), { id: entry.id, object: 'dnc_entry', deleted: true });
    const missing = await voice.calls.get(missingId('call')).catch((error: unknown) => error);
    assert.ok(missing instanceof VoiceApiError && missing.status === 404 && missing.code === 'not_found');

    // The figures of the last response: the monthly quota and what is left of it.
    const stats = await voice.calls.stats();
    assert.ok(stats);
    assert.equal(voice.rateLimit?.limit, 50);
    const remaining = voice.rateLimit?.remaining as number;
    await voice.calls.get(call.id);
    assert.equal(voice.rateLimit?.remaining, remaining - 1);
    assert.ok((voice.rateLimit?.reset.getTime() ?? 0) > Date.now());
  });
});
