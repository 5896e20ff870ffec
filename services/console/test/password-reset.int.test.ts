import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deleteEndedRecords } from '../src/domain/cleanup.js';
import { resetRequestedMessage } from '../src/views/password-reset.js';
import { type Harness, newOrgId, startHarness } from './support/harness.js';
import { linkIn, startMailServer, type TestMailServer } from './support/smtp.js';

const minute = 60_000;
const newPassword = 'a brand new passphrase';

describe('password reset by e-mail', () => {
  let harness: Harness;
  let mail: TestMailServer;
  let orgId: string;

  before(async () => {
    mail = await startMailServer();
    harness = await startHarness({
      SMTP_URL: mail.url,
      MAIL_FROM: 'Console <console@example.com>',
      SIGN_IN_ACCOUNT_LIMIT: '3',
      SIGN_IN_ADDRESS_LIMIT: '8',
    });
    orgId = newOrgId();
  });
  after(async () => {
    await harness?.close();
    await mail?.close();
  });

  /** Asks for a reset link from its own client address (the per-address count stays out of the way) and returns the link's path. */
  async function requestLink(email: string, address: string): Promise<string> {
    const browser = harness.browser({ address });
    await browser.get('/dashboard/forgot-password');
    const response = await browser.post('/dashboard/forgot-password', { email });
    assert.equal(response.statusCode, 200);
    assert.ok(response.body.includes(resetRequestedMessage));
    const message = await mail.next(email);
    assert.equal(message.from, 'console@example.com');
    assert.match(message.raw, /Subject: Reset your Voice console password/);
    const link = new URL(linkIn(message));
    assert.equal(link.origin, new URL(harness.deps.env.PUBLIC_BASE_URL).origin);
    return link.pathname;
  }

  test('the link sets a new password once: signed in, every old session and the old password refused', async () => {
    const person = await harness.person(orgId, 'member');
    const laptop = harness.browser({ address: '198.51.100.10' });
    assert.equal((await laptop.signIn(person.email, person.password)).statusCode, 303);
    assert.equal((await laptop.get('/dashboard/settings/preferences')).statusCode, 200);

    const path = await requestLink(person.email, '198.51.100.11');
    const phone = harness.browser({ address: '198.51.100.12' });
    const form = await phone.get(path);
    assert.equal(form.statusCode, 200);
    assert.ok(form.body.includes(person.email.toLowerCase()));
    const saved = await phone.post(path, { password: newPassword, password_confirmation: newPassword });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, '/dashboard');
    assert.equal((await phone.get('/dashboard/settings/preferences')).statusCode, 200, 'signed in by the reset');

    const old = await laptop.get('/dashboard/settings/preferences');
    assert.equal(old.statusCode, 303, "the old session's cookie is refused");
    assert.equal(old.headers.location, '/dashboard/sign-in');
    assert.equal((await harness.browser({ address: '198.51.100.13' }).signIn(person.email, person.password)).statusCode, 401);
    assert.equal((await harness.browser({ address: '198.51.100.14' }).signIn(person.email, newPassword)).statusCode, 303);

    const again = await harness.browser({ address: '198.51.100.15' }).get(path);
    assert.equal(again.statusCode, 410, 'a used link is refused');
    const reused = harness.browser({ address: '198.51.100.16' });
    await reused.get('/dashboard/forgot-password');
    assert.equal(
      (await reused.post(path, { password: 'yet another passphrase', password_confirmation: 'yet another passphrase' })).statusCode,
      410,
    );
    assert.equal(
      (await harness.browser({ address: '198.51.100.17' }).signIn(person.email, newPassword)).statusCode,
      303,
      'the password stays',
    );

    const rows = await harness.deps.prisma.passwordReset.findMany({ where: { userId: person.userId } });
    assert.equal(rows.length, 1);
    assert.ok(!path.includes(rows[0]?.tokenHash ?? ''), 'only a hash of the token is stored');
  });

  test('a link expires after 30 minutes', async () => {
    const person = await harness.person(orgId, 'admin');
    const path = await requestLink(person.email, '198.51.100.20');
    harness.clock.advanceMs(29 * minute);
    const browser = harness.browser({ address: '198.51.100.21' });
    assert.equal((await browser.get(path)).statusCode, 200, 'usable at 29 minutes');
    harness.clock.advanceMs(2 * minute);
    const expired = await browser.get(path);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /expired/);
    const posted = await browser.post(path, { password: newPassword, password_confirmation: newPassword });
    assert.equal(posted.statusCode, 410);
    assert.equal(
      (await harness.browser({ address: '198.51.100.22' }).signIn(person.email, person.password)).statusCode,
      303,
      'the password is unchanged',
    );
  });

  test('the cleanup deletes reset links 30 days after they expired', async () => {
    const person = await harness.person(orgId, 'member');
    await requestLink(person.email, '198.51.100.25');
    harness.clock.advanceMs(31 * 24 * 60 * minute);
    const deleted = await deleteEndedRecords(harness.deps);
    assert.ok(deleted.passwordResets >= 1);
    assert.equal(await harness.deps.prisma.passwordReset.count({ where: { userId: person.userId } }), 0);
  });

  test('a forged or malformed link is refused', async () => {
    const browser = harness.browser({ address: '198.51.100.30' });
    assert.equal((await browser.get('/dashboard/reset-password/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).statusCode, 404);
    assert.equal((await browser.get('/dashboard/reset-password/not*a*token')).statusCode, 404);
    await browser.get('/dashboard/forgot-password');
    const forged = await browser.post('/dashboard/reset-password/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', {
      password: newPassword,
      password_confirmation: newPassword,
    });
    assert.equal(forged.statusCode, 404);
  });

  test('the new password is checked on the form, and nothing is used up by a wrong one', async () => {
    const person = await harness.person(orgId, 'member');
    const path = await requestLink(person.email, '198.51.100.40');
    const browser = harness.browser({ address: '198.51.100.41' });
    await browser.get(path);
    const short = await browser.post(path, { password: 'short', password_confirmation: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 12 characters/);
    const differ = await browser.post(path, { password: newPassword, password_confirmation: `${newPassword}!` });
    assert.equal(differ.statusCode, 400);
    assert.match(differ.body, /The two passwords differ/);
    const withoutToken = await browser.post(path, { password: newPassword, password_confirmation: newPassword }, { csrf: false });
    assert.equal(withoutToken.statusCode, 403);
    assert.equal((await browser.post(path, { password: newPassword, password_confirmation: newPassword })).statusCode, 303);
  });

  test('an unknown address gets the same answer, and no e-mail', async () => {
    const person = await harness.person(orgId, 'member');
    const unknown = `nobody.${Date.now()}@example.com`;
    const browser = harness.browser({ address: '198.51.100.50' });
    await browser.get('/dashboard/forgot-password');
    const answer = await browser.post('/dashboard/forgot-password', { email: unknown });
    assert.equal(answer.statusCode, 200);
    assert.ok(answer.body.includes(resetRequestedMessage), 'the answer a known address gets (requestLink checks it)');
    await requestLink(person.email, '198.51.100.51');
    // The known address's message arrived after the unknown one was asked for: none went to the unknown one.
    assert.ok(mail.received.every((message) => !message.to.includes(unknown)));
    const blank = await browser.post('/dashboard/forgot-password', { email: 'not an address' });
    assert.equal(blank.statusCode, 400);
  });

  test('requests are throttled per address asked for and per client address', async () => {
    const person = await harness.person(orgId, 'member');
    for (let attempt = 1; attempt <= 3; attempt++) await requestLink(person.email, `198.51.100.${60 + attempt}`);
    const browser = harness.browser({ address: '198.51.100.64' });
    await browser.get('/dashboard/forgot-password');
    const throttled = await browser.post('/dashboard/forgot-password', { email: person.email.toUpperCase() });
    assert.equal(throttled.statusCode, 429);
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    assert.match(throttled.body, /Too many requests/);

    const client = harness.browser({ address: '198.51.100.70' });
    await client.get('/dashboard/forgot-password');
    for (let attempt = 1; attempt <= 8; attempt++) {
      const response = await client.post('/dashboard/forgot-password', { email: `someone${attempt}.${Date.now()}@example.com` });
      assert.equal(response.statusCode, 200, `request ${attempt}`);
    }
    const past = await client.post('/dashboard/forgot-password', { email: `someone-else.${Date.now()}@example.com` });
    assert.equal(past.statusCode, 429, 'past the per-address limit, for any address asked for');
  });

  test('an SMTP server that refuses the connection changes nothing in the answer', async () => {
    // A port nothing listens on: nodemailer's connection is refused at once, the failure is logged.
    const unreachable = await startHarness({ SMTP_URL: 'smtp://127.0.0.1:9' });
    try {
      const person = await unreachable.person(newOrgId(), 'member');
      const browser = unreachable.browser({ address: '198.51.100.90' });
      await browser.get('/dashboard/forgot-password');
      const answer = await browser.post('/dashboard/forgot-password', { email: person.email });
      assert.equal(answer.statusCode, 200);
      assert.ok(answer.body.includes(resetRequestedMessage));
    } finally {
      await unreachable.close();
    }
  });

  test('the sign-in page links to it', async () => {
    const page = await harness.browser().get('/dashboard/sign-in');
    assert.match(page.body, /href="\/dashboard\/forgot-password"[^>]*>Forgot password\?/);
  });
});
