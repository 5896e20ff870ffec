import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { SecretBox } from '../src/domain/secret-box.js';
import { newSecret } from '../src/domain/signature.js';

describe('secret box', () => {
  const box = new SecretBox(randomBytes(32).toString('base64'));

  test('seals a secret so that only the same key and endpoint open it', () => {
    const secret = newSecret();
    const sealed = box.seal(secret, 'whk_0123456789abcdef');
    assert.match(sealed, /^v1\./);
    assert.equal(sealed.includes(secret.slice(6)), false);
    assert.notEqual(box.seal(secret, 'whk_0123456789abcdef'), sealed, 'a fresh IV each time');
    assert.equal(box.open(sealed, 'whk_0123456789abcdef'), secret);
    assert.throws(() => box.open(sealed, 'whk_fedcba9876543210'));
    assert.throws(() => new SecretBox(randomBytes(32).toString('base64')).open(sealed, 'whk_0123456789abcdef'));
  });

  test('refuses a key that is not 32 bytes', () => {
    assert.throws(() => new SecretBox(randomBytes(16).toString('base64')), /32 bytes/);
  });
});
