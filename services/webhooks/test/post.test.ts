import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Receiver, startReceiver } from '@voice/kit/testing';
import { postJson } from '../src/delivery/post.js';

describe('outbound POST', () => {
  let receiver: Receiver;
  const options = { timeoutMs: 5_000, allowPrivateAddresses: false, excerptChars: 10 };

  before(async () => {
    receiver = await startReceiver((request) => (request.body === '"hold"' ? 'hold' : request.body === '"redirect"' ? 302 : 200));
  });
  after(() => receiver.close());

  test('refuses a loopback address given as a literal, before connecting', async () => {
    const result = await postJson(receiver.url, '{}', {}, options);
    assert.deepEqual(result, { kind: 'error', error: 'address_not_allowed' });
    assert.equal(receiver.requests.length, 0);
  });

  test('refuses a name that resolves to loopback, after DNS resolution', async () => {
    const byName = receiver.url.replace('127.0.0.1', 'localhost');
    const result = await postJson(byName, '{}', {}, options);
    assert.deepEqual(result, { kind: 'error', error: 'address_not_allowed' });
    assert.equal(receiver.requests.length, 0);
  });

  test('with private addresses allowed: sends JSON with the given headers, keeps a short excerpt', async () => {
    const result = await postJson(receiver.url, '{"a":1}', { 'webhook-id': 'evt_abcdefgh12' }, { ...options, allowPrivateAddresses: true });
    assert.deepEqual(result, { kind: 'response', status: 200, excerpt: 'answered 2' });
    const [request] = receiver.requests.slice(-1);
    assert.equal(request?.headers['webhook-id'], 'evt_abcdefgh12');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.body, '{"a":1}');
  });

  test('does not follow redirects', async () => {
    const result = await postJson(receiver.url, '"redirect"', {}, { ...options, allowPrivateAddresses: true });
    assert.equal(result.kind === 'response' && result.status, 302);
  });

  test('an answer that does not come within the timeout is a timeout', async () => {
    const result = await postJson(receiver.url, '"hold"', {}, { ...options, allowPrivateAddresses: true, timeoutMs: 100 });
    assert.deepEqual(result, { kind: 'error', error: 'timeout' });
  });

  test('a refused connection is a connection failure', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const result = await postJson(url, '{}', {}, { ...options, allowPrivateAddresses: true });
    assert.deepEqual(result, { kind: 'error', error: 'connection_failed' });
  });
});
