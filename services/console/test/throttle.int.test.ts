import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, newOrgId, startHarness } from './support/harness.js';

const alertText = (body: string) => /role="alert">([^<]+)</.exec(body)?.[1] ?? '';

describe('sign-in throttling (Redis, per address and per account)', () => {
  let harness: Harness;
  let orgId: string;

  before(async () => {
    harness = await startHarness({ SIGN_IN_ACCOUNT_LIMIT: '3', SIGN_IN_ADDRESS_LIMIT: '6', SIGN_IN_WINDOW_SECONDS: '600' });
    orgId = newOrgId();
  });
  after(() => harness.close());

  test('past the account limit: 429 with "try again in N seconds", even with the right password; other accounts unaffected', async () => {
    const person = await harness.person(orgId, 'member');
    const other = await harness.person(orgId, 'member');
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      assert.equal((await harness.browser({ address }).signIn(person.email, 'wrong password, again')).statusCode, 401);
    }
    const refused = await harness.browser({ address: '203.0.113.4' }).signIn(person.email, person.password);
    assert.equal(refused.statusCode, 429);
    const seconds = Number(refused.headers['retry-after']);
    assert.ok(seconds > 0 && seconds <= 600, `Retry-After ${seconds}`);
    assert.equal(alertText(refused.body), `Too many sign-in attempts. Try again in ${seconds} seconds.`);
    assert.equal((await harness.browser({ address: '203.0.113.4' }).signIn(other.email, other.password)).statusCode, 303);
  });

  test('a correct password clears the account count', async () => {
    const person = await harness.person(orgId, 'member');
    for (let round = 0; round < 3; round++) {
      const browser = harness.browser({ address: `203.0.113.${20 + round}` });
      assert.equal((await browser.signIn(person.email, 'wrong password, again')).statusCode, 401);
      assert.equal((await browser.signIn(person.email, 'still the wrong one')).statusCode, 401);
      assert.equal((await browser.signIn(person.email, person.password)).statusCode, 303, `round ${round}`);
    }
  });

  test('past the address limit: 429 for any account from that address, not from others', async () => {
    const address = '203.0.113.50';
    for (let attempt = 0; attempt < 6; attempt++) {
      assert.equal((await harness.browser({ address }).signIn(`guess${attempt}@example.com`, 'password guess')).statusCode, 401);
    }
    const person = await harness.person(orgId, 'member');
    const refused = await harness.browser({ address }).signIn(person.email, person.password);
    assert.equal(refused.statusCode, 429);
    assert.match(alertText(refused.body), /^Too many sign-in attempts\. Try again in \d+ seconds\.$/);
    assert.equal((await harness.browser({ address: '203.0.113.51' }).signIn(person.email, person.password)).statusCode, 303);
  });

  test('the counters live in Redis under the process prefix, with no e-mail address in their keys', async () => {
    const keys = await harness.deps.redis.keys(`${harness.ctx.redisPrefix}ratelimit:console-sign-in-*`);
    assert.ok(keys.length > 0);
    for (const key of keys) assert.doesNotMatch(key, /@/);
  });
});
