// verifyWebhook against what the webhooks service signs, and the Standard Webhooks specification's example.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newSecret, signedHeaders } from '../../../services/webhooks/src/domain/signature.js';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

const body = JSON.stringify({
  id: 'evt_1',
  type: 'lead.created',
  created_at: '2026-11-26T10:00:00.000Z',
  org_id: 'org_1',
  data: { id: 'lead_1' },
});
const now = new Date('2026-11-26T10:00:00Z');

describe('verifyWebhook', () => {
  test('accepts what the webhooks service signs, and returns the parsed event', () => {
    const secret = newSecret();
    const headers = signedHeaders([secret], 'evt_1', body, now);
    assert.deepEqual(verifyWebhook(body, headers, secret, { now }), JSON.parse(body));
    assert.deepEqual(
      verifyWebhook(Buffer.from(body), new Headers({ ...headers }), secret, { now }),
      JSON.parse(body),
      'a Buffer and fetch Headers',
    );
    const nodeStyle = {
      'Webhook-Id': headers['webhook-id'],
      'webhook-timestamp': [headers['webhook-timestamp']],
      'webhook-signature': headers['webhook-signature'],
    };
    assert.ok(verifyWebhook(body, nodeStyle, secret, { now }), 'header names in any case, arrays as node gives them');
  });

  test('accepts either secret during a rotation (two signatures)', () => {
    const [previous, current] = [newSecret(), newSecret()];
    const headers = signedHeaders([current, previous], 'evt_1', body, now);
    assert.ok(verifyWebhook(body, headers, previous, { now }));
    assert.ok(verifyWebhook(body, headers, current, { now }));
  });

  test('matches the Standard Webhooks specification example', () => {
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const payload = '{"test": 2432232314}';
    assert.deepEqual(verifyWebhook(payload, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { now: new Date(1614265330_000) }), {
      test: 2432232314,
    });
  });

  test('refuses another secret, a changed body, a stale or future timestamp, and missing headers', () => {
    const secret = newSecret();
    const headers = signedHeaders([secret], 'evt_1', body, now);
    const refused = (run: () => unknown, why: RegExp) =>
      assert.throws(run, (error: Error) => error instanceof WebhookVerificationError && why.test(error.message));
    refused(() => verifyWebhook(body, headers, newSecret(), { now }), /no signature matches/);
    refused(() => verifyWebhook(`${body} `, headers, secret, { now }), /no signature matches/);
    refused(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_2' }, secret, { now }), /no signature matches/);
    refused(() => verifyWebhook(body, headers, secret, { now: new Date(now.getTime() + 301_000) }), /tolerance/);
    refused(() => verifyWebhook(body, headers, secret, { now: new Date(now.getTime() - 301_000) }), /tolerance/);
    assert.ok(verifyWebhook(body, headers, secret, { now: new Date(now.getTime() + 299_000) }), 'within five minutes');
    refused(() => verifyWebhook(body, { ...headers, 'webhook-signature': 'v2,abc' }, secret, { now }), /no signature matches/);
    refused(() => verifyWebhook(body, { 'webhook-id': 'evt_1' }, secret, { now }), /missing/);
  });
});
