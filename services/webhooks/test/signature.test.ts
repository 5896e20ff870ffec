import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newSecret, sign, signedHeaders, verify } from '../src/domain/signature.js';

describe('Standard Webhooks signature', () => {
  test('matches the reference vector of the Standard Webhooks libraries', () => {
    const signature = sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('new secrets are whsec_ and 32 random bytes in base64', () => {
    const secret = newSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(secret, newSecret());
  });

  test('headers carry the id, the timestamp in seconds and one signature per secret', () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    const [current, previous] = [newSecret(), newSecret()];
    const headers = signedHeaders([current, previous], 'evt_abcdefgh12', '{"a":1}', now);
    assert.equal(headers['webhook-id'], 'evt_abcdefgh12');
    assert.equal(headers['webhook-timestamp'], String(Math.floor(now.getTime() / 1000)));
    const parts = headers['webhook-signature'].split(' ');
    assert.equal(parts.length, 2);
    const given = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] };
    assert.ok(verify(current, given, '{"a":1}', { now }));
    assert.ok(verify(previous, given, '{"a":1}', { now }));
  });

  test('a changed body, another secret or an old timestamp does not verify', () => {
    const now = new Date();
    const secret = newSecret();
    const headers = signedHeaders([secret], 'evt_abcdefgh12', '{"a":1}', now);
    const given = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] };
    assert.equal(verify(secret, given, '{"a":2}', { now }), false);
    assert.equal(verify(newSecret(), given, '{"a":1}', { now }), false);
    assert.equal(verify(secret, given, '{"a":1}', { now: new Date(now.getTime() + 10 * 60_000) }), false);
  });
});
