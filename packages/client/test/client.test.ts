// The client against a small local HTTP server that answers as each test scripts: the key, the
// Idempotency-Key, retries that honour Retry-After, the error envelope, pagination, the rate-limit figures.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { VoiceApiError, VoiceClient } from '../src/index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const seen: Seen[] = [];
let answer: (request: Seen, index: number) => Answer = () => ({ status: 200, body: {} });
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const received = {
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    const { status, headers = {}, body } = answer(received, seen.push(received) - 1);
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? '' : JSON.stringify(body));
  });
});
let baseUrl: string;
const sleeps: number[] = [];
/** The client under test; its waits are recorded and not slept, so the tests take no time. */
const client = () =>
  new VoiceClient({
    apiKey: 'vk_live_test',
    baseUrl,
    retry: { retries: 2, maxDelayMs: 5_000, baseDelayMs: 100, sleep: async (ms) => void sleeps.push(ms) },
  });

const call = { id: 'call_1', direction: 'inbound' };
const envelope = (code: string, message: string, param?: string) => ({
  error: { code, message, ...(param ? { param } : {}), request_id: 'request_abc' },
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
  sleeps.length = 0;
});

describe('VoiceClient', () => {
  test('every operation of the OpenAPI document has a method named by its operationId, sending its method and path', async () => {
    const document = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    answer = () => ({ status: 200, body: { data: [], has_more: false, next_cursor: null } });
    const methods = client().operations as unknown as Record<string, (init: object) => Promise<unknown>>;
    const pathParameters = { id: 'id_1', enrollment_id: 'enr_1', delivery_id: 'del_1', kind: 'telegram' };
    let count = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, { operationId }] of Object.entries(item)) {
        const send = methods[operationId];
        assert.equal(typeof send, 'function', `no client method for ${operationId}`);
        seen.length = 0;
        await send?.({ path: pathParameters, ...(method === 'get' || method === 'delete' ? {} : { body: {} }) });
        const expected = path.replace(/\{(\w+)\}/g, (_match, name: keyof typeof pathParameters) => pathParameters[name]);
        assert.deepEqual([seen[0]?.method, seen[0]?.url], [method.toUpperCase(), expected], operationId);
        count += 1;
      }
    }
    assert.equal(Object.keys(methods).length, count, 'a client method for an operation the document no longer has');
  });

  test("test mode's helpers send their method, path and body", async () => {
    answer = () => ({ status: 200, body: { ...call } });
    const voice = client();
    await voice.testHelpers.advanceCall('call_1');
    await voice.testHelpers.advanceCall('call_1', { outcome: 'booked' });
    await voice.testHelpers.inboundCall({ from: '+15005550101' });
    await voice.testHelpers.inboundSms({ from: '+15005550107', body: 'STOP' });
    await voice.testHelpers.triggerEvent({ event_type: 'call.completed' });
    assert.deepEqual(
      seen.map((request) => [request.method, request.url, request.body]),
      [
        ['POST', '/api/v1/test_helpers/calls/call_1/advance', '{}'],
        ['POST', '/api/v1/test_helpers/calls/call_1/advance', '{"outcome":"booked"}'],
        ['POST', '/api/v1/test_helpers/calls/inbound', '{"from":"+15005550101"}'],
        ['POST', '/api/v1/test_helpers/sms/inbound', '{"from":"+15005550107","body":"STOP"}'],
        ['POST', '/api/v1/test_helpers/webhooks/trigger', '{"event_type":"call.completed"}'],
      ],
    );
  });

  test('a connection that fails before any answer is tried again, with the same Idempotency-Key', async () => {
    let failures = 1;
    const attempts: string[] = [];
    const voice = new VoiceClient({
      apiKey: 'vk_live_test',
      baseUrl,
      retry: { retries: 2, baseDelayMs: 100, sleep: async (ms) => void sleeps.push(ms) },
      fetch: async (request) => {
        attempts.push(request.headers.get('idempotency-key') ?? '');
        if (failures-- > 0) throw new TypeError('fetch failed');
        return fetch(request);
      },
    });
    answer = () => ({ status: 201, body: { ...call } });
    assert.deepEqual(await voice.calls.create({ to: '+14155550100' }), call);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0], attempts[1]);
    assert.equal(seen.length, 1, 'one request reached the server');
    assert.deepEqual(sleeps, [100]);
    failures = 5;
    await assert.rejects(voice.calls.get('call_1'), /fetch failed/);
  });

  test('sends the key as a Bearer credential, to the base URL', async () => {
    answer = () => ({ status: 200, body: { ...call } });
    assert.deepEqual(await client().calls.get('call_1'), call);
    assert.equal(seen[0]?.url, '/api/v1/phone/calls/call_1');
    assert.equal(seen[0]?.headers.authorization, 'Bearer vk_live_test');
  });

  test('takes the key from VOICE_API_KEY and the address from VOICE_API_URL', async () => {
    answer = () => ({ status: 200, body: call });
    const saved = { key: process.env.VOICE_API_KEY, url: process.env.VOICE_API_URL };
    process.env.VOICE_API_KEY = 'vk_live_from_env';
    process.env.VOICE_API_URL = baseUrl;
    try {
      await new VoiceClient().calls.get('call_1');
      assert.equal(seen[0]?.headers.authorization, 'Bearer vk_live_from_env');
      delete process.env.VOICE_API_KEY;
      assert.throws(() => new VoiceClient(), /VOICE_API_KEY/);
    } finally {
      for (const [name, value] of [
        ['VOICE_API_KEY', saved.key],
        ['VOICE_API_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  test('every create carries an Idempotency-Key unless one is given, the same one on each retry', async () => {
    answer = (_request, index) =>
      index === 0
        ? { status: 503, headers: { 'retry-after': '0' }, body: envelope('unavailable', 'retry') }
        : { status: 201, body: { id: 'lead_1' } };
    await client().leads.create({ name: 'Ada' } as never);
    const key = seen[0]?.headers['idempotency-key'];
    assert.match(String(key), /^[0-9a-f-]{36}$/);
    assert.equal(seen.length, 2);
    assert.equal(seen[1]?.headers['idempotency-key'], key, 'a retried create keeps its key');
    assert.equal(seen[1]?.body, seen[0]?.body, 'and its body');

    seen.length = 0;
    answer = () => ({ status: 201, body: { id: 'lead_2' } });
    await client().leads.create({ name: 'Ada' } as never, { idempotencyKey: 'mine-1234' });
    assert.equal(seen[0]?.headers['idempotency-key'], 'mine-1234');
    await client().calls.get('call_1');
    assert.equal(seen[1]?.headers['idempotency-key'], undefined, 'reads carry none');
  });

  test('retries 429 and 503 after the Retry-After they name, a bounded number of times', async () => {
    answer = (_request, index) =>
      index < 2
        ? { status: index === 0 ? 429 : 503, headers: { 'retry-after': index === 0 ? '2' : new Date(Date.now() + 3_000).toUTCString() } }
        : { status: 200, body: call };
    assert.deepEqual(await client().calls.get('call_1'), call);
    assert.equal(seen.length, 3);
    assert.equal(sleeps[0], 2_000, 'Retry-After in seconds');
    assert.ok(sleeps[1] === 3_000 || sleeps[1] === 2_000, `Retry-After as an HTTP date, ${sleeps[1]} ms`);

    seen.length = 0;
    sleeps.length = 0;
    answer = () => ({ status: 503, body: envelope('unavailable', 'down') });
    await assert.rejects(client().calls.get('call_1'), (error: VoiceApiError) => error.status === 503 && error.code === 'unavailable');
    assert.equal(seen.length, 3, 'the first attempt and two retries');
    assert.deepEqual(sleeps, [100, 200], 'without Retry-After, a doubling wait');

    seen.length = 0;
    answer = () => ({ status: 500, body: envelope('internal', 'boom') });
    await assert.rejects(client().calls.get('call_1'), (error: VoiceApiError) => error.status === 500);
    assert.equal(seen.length, 1, 'other errors are not retried');
  });

  test('does not wait for a Retry-After beyond its bound (a monthly quota used up)', async () => {
    answer = () => ({ status: 429, headers: { 'retry-after': '86400' }, body: envelope('quota_exceeded', 'Monthly quota used up') });
    await assert.rejects(client().calls.get('call_1'), (error: VoiceApiError) => {
      assert.equal(error.code, 'quota_exceeded');
      assert.equal(error.retryAfterSeconds, 86400);
      return true;
    });
    assert.equal(seen.length, 1);
  });

  test('an error answer throws VoiceApiError with the envelope’s code, param, request_id and message', async () => {
    answer = () => ({ status: 400, body: envelope('invalid_request', 'phone must be E.164', 'phone') });
    const error = await client()
      .dnc.add({ phone: 'nope' })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof VoiceApiError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.param, 'phone');
    assert.equal(error.request_id, 'request_abc');
    assert.equal(error.message, 'phone must be E.164');

    answer = () => ({ status: 502, headers: { 'content-type': 'text/plain', 'request-id': 'request_xyz' } });
    const bare = await client()
      .calls.get('call_1')
      .catch((caught: unknown) => caught);
    assert.ok(bare instanceof VoiceApiError);
    assert.equal(bare.status, 502);
    assert.equal(bare.code, 'unknown');
    assert.equal(bare.requestId, 'request_xyz');
  });

  test('a list is an async iterator over every page, following next_cursor with the same filters', async () => {
    const pages: Record<string, unknown> = {
      '': { data: [{ id: 'call_1' }, { id: 'call_2' }], has_more: true, next_cursor: 'c2' },
      c2: { data: [{ id: 'call_3' }], has_more: true, next_cursor: 'c3' },
      c3: { data: [{ id: 'call_4' }], has_more: false, next_cursor: null },
    };
    answer = (request) => ({ status: 200, body: pages[new URL(request.url, baseUrl).searchParams.get('cursor') ?? ''] });
    const ids: string[] = [];
    for await (const item of client().calls.list({ direction: 'inbound', limit: 2 })) ids.push(item.id);
    assert.deepEqual(ids, ['call_1', 'call_2', 'call_3', 'call_4']);
    assert.equal(seen.length, 3);
    for (const request of seen) {
      const query = new URL(request.url, baseUrl).searchParams;
      assert.equal(query.get('direction'), 'inbound');
      assert.equal(query.get('limit'), '2');
    }

    // Stopping early fetches no further page.
    seen.length = 0;
    for await (const item of client().calls.list()) if (item.id === 'call_2') break;
    assert.equal(seen.length, 1);
  });

  test('keeps the rate-limit figures of the last response', async () => {
    answer = (_request, index) => ({
      status: 200,
      headers: { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': String(900 - index), 'x-ratelimit-reset': '1798761600' },
      body: call,
    });
    const voice = client();
    assert.equal(voice.rateLimit, undefined);
    await voice.calls.get('call_1');
    await voice.calls.get('call_1');
    assert.deepEqual(voice.rateLimit, { limit: 1000, remaining: 899, reset: new Date(1798761600 * 1000) });
  });
});
