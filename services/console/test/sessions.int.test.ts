import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deleteEndedRecords } from '../src/domain/cleanup.js';
import { type Harness, newOrgId, startHarness } from './support/harness.js';

const minute = 60_000;

describe('sessions', () => {
  let harness: Harness;
  let orgId: string;
  let person: { email: string; password: string; userId: string };

  before(async () => {
    harness = await startHarness({ SESSION_IDLE_TIMEOUT_MS: String(30 * minute), SESSION_ABSOLUTE_TIMEOUT_MS: String(120 * minute) });
    orgId = newOrgId();
    person = await harness.person(orgId, 'admin');
  });
  after(() => harness.close());

  async function signedInBrowser() {
    const browser = harness.browser();
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303);
    return browser;
  }

  test('a session unused past the idle timeout ends; use moves the idle end forward', async () => {
    const browser = await signedInBrowser();
    harness.clock.advanceMs(20 * minute);
    assert.equal((await browser.get('/dashboard')).statusCode, 200, 'used within the idle timeout');
    harness.clock.advanceMs(20 * minute);
    assert.equal((await browser.get('/dashboard')).statusCode, 200, '40 minutes after sign-in, 20 after the last use');
    harness.clock.advanceMs(31 * minute);
    const idle = await browser.get('/dashboard');
    assert.equal(idle.statusCode, 303);
    assert.equal(idle.headers.location, '/dashboard/sign-in');
  });

  test('a session ends at its absolute expiry however busy it is', async () => {
    const browser = await signedInBrowser();
    for (let elapsed = 0; elapsed < 115; elapsed += 25) {
      harness.clock.advanceMs(25 * minute);
      const response = await browser.get('/dashboard');
      assert.equal(response.statusCode, elapsed + 25 < 120 ? 200 : 303, `${elapsed + 25} minutes after sign-in`);
    }
    harness.clock.advanceMs(10 * minute);
    assert.equal((await browser.get('/dashboard')).statusCode, 303, '135 minutes after sign-in');
  });

  test('sign out everywhere ends the sessions of every device', async () => {
    const laptop = await signedInBrowser();
    const phone = await signedInBrowser();
    assert.equal((await phone.get('/dashboard')).statusCode, 200);
    await laptop.get('/dashboard');
    const response = await laptop.post('/dashboard/sign-out-everywhere', {});
    assert.equal(response.statusCode, 303);
    assert.equal((await phone.get('/dashboard')).statusCode, 303);
    const live = await harness.deps.prisma.session.count({ where: { userId: person.userId, revokedAt: null } });
    assert.equal(live, 0);
  });

  test('a revoked session is refused at once, even with its cookie', async () => {
    const browser = await signedInBrowser();
    await harness.deps.prisma.session.updateMany({ where: { userId: person.userId }, data: { revokedAt: harness.clock.now } });
    assert.equal((await browser.get('/dashboard')).statusCode, 303);
  });

  test('only a hash of the token is stored', async () => {
    const browser = await signedInBrowser();
    const token = browser.cookies.get('console_session') ?? '';
    const rows = await harness.deps.prisma.session.findMany({ where: { userId: person.userId } });
    assert.ok(rows.length > 0);
    for (const row of rows) assert.notEqual(row.idHash, token);
  });

  test('the cleanup deletes sessions 30 days after they ended, and keeps live ones', async () => {
    await signedInBrowser();
    harness.clock.advanceMs(31 * 24 * 60 * minute);
    const live = await signedInBrowser();
    await deleteEndedRecords(harness.deps);
    const left = await harness.deps.prisma.session.findMany({ where: { userId: person.userId } });
    assert.equal(left.length, 1);
    assert.equal((await live.get('/dashboard')).statusCode, 200);
  });

  test('a member removed from the organization loses it at once; with no organization left the session ends', async () => {
    const otherOrg = newOrgId();
    const leaving = await harness.person(otherOrg, 'member');
    const browser = harness.browser();
    await browser.signIn(leaving.email, leaving.password);
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
    await harness.deps.prisma.membership.deleteMany({ where: { userId: leaving.userId } });
    assert.equal((await browser.get('/dashboard')).statusCode, 303);
  });
});
