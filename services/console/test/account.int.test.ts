import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, newOrgId, startHarness } from './support/harness.js';

const accountPath = '/dashboard/settings/account';
const chromeOnLinux = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('the account page', () => {
  let harness: Harness;
  let orgId: string;

  before(async () => {
    harness = await startHarness({}, { gateway: true });
    orgId = newOrgId();
  });
  after(() => harness?.close());

  async function signedIn(person: { email: string; password: string }, address: string) {
    const browser = harness.browser({ address });
    assert.equal((await browser.signIn(person.email, person.password)).statusCode, 303);
    return browser;
  }

  test('lists the sessions with device, address and times; signs out one of them', async () => {
    const person = await harness.person(orgId, 'member');
    const laptop = await signedIn(person, '198.51.100.80');
    const page = await laptop.get(accountPath);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /This session/);
    assert.match(page.body, /198\.51\.100\.80/);
    assert.ok(page.body.includes(person.email.toLowerCase()));

    const other = await signedIn(person, '198.51.100.82');
    const row = await harness.deps.prisma.session.findFirstOrThrow({
      where: { userId: person.userId, clientAddress: '198.51.100.82', revokedAt: null },
    });
    const listed = await laptop.get(accountPath);
    assert.ok(listed.body.includes(`${accountPath}/sessions/${row.publicId}/sign-out`));
    assert.ok(!listed.body.includes(row.idHash), 'the session hash stays out of the page');
    const ended = await laptop.post(`${accountPath}/sessions/${row.publicId}/sign-out`, {});
    assert.equal(ended.statusCode, 303);
    assert.equal(ended.headers.location, accountPath);
    assert.equal((await other.get(accountPath)).statusCode, 303, 'the signed-out session is refused');
    assert.equal((await laptop.get(accountPath)).statusCode, 200, 'this session goes on');
    assert.equal((await laptop.post(`${accountPath}/sessions/${row.publicId}/sign-out`, {})).statusCode, 404, 'already ended');
  });

  test("another person's session cannot be signed out (404), nor a made-up id", async () => {
    const person = await harness.person(orgId, 'owner');
    const stranger = await harness.person(newOrgId(), 'owner');
    const browser = await signedIn(person, '198.51.100.83');
    const strangerBrowser = await signedIn(stranger, '198.51.100.84');
    const theirs = await harness.deps.prisma.session.findFirstOrThrow({ where: { userId: stranger.userId, revokedAt: null } });
    await browser.get(accountPath);
    assert.equal((await browser.post(`${accountPath}/sessions/${theirs.publicId}/sign-out`, {})).statusCode, 404);
    assert.equal((await browser.post(`${accountPath}/sessions/not-a-session/sign-out`, {})).statusCode, 404);
    assert.equal((await strangerBrowser.get(accountPath)).statusCode, 200, 'their session goes on');
    assert.equal((await browser.post(`${accountPath}/sessions/${theirs.publicId}/sign-out`, {}, { csrf: false })).statusCode, 403);
  });

  test('the device is recorded from the User-Agent at sign-in', async () => {
    const person = await harness.person(orgId, 'member');
    const phone = harness.browser({ address: '198.51.100.85' });
    await phone.get('/dashboard/sign-in');
    // The browser helper sends no User-Agent: this sign-in is posted by hand with the helper's cookies and form token.
    const response = await harness.app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      remoteAddress: '198.51.100.85',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': chromeOnLinux,
        cookie: [...phone.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
      payload: new URLSearchParams({ email: person.email, password: person.password, _csrf: phone.formToken ?? '' }).toString(),
    });
    assert.equal(response.statusCode, 303);
    const browser = await signedIn(person, '198.51.100.86');
    const page = await browser.get(accountPath);
    assert.match(page.body, /Chrome on Linux/);
    assert.match(page.body, /198\.51\.100\.85/);
  });

  test('a password change needs the current password and ends every other session', async () => {
    const person = await harness.person(orgId, 'member');
    const laptop = await signedIn(person, '198.51.100.90');
    const phone = await signedIn(person, '198.51.100.91');
    await laptop.get(accountPath);
    const next = 'my next long passphrase';

    const wrong = await laptop.post(`${accountPath}/password`, {
      current_password: 'not it at all',
      password: next,
      password_confirmation: next,
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /id="current-password-error" class="field-error">Your current password is not this one/);
    assert.equal((await phone.get(accountPath)).statusCode, 200, 'a refused change ends nothing');

    const short = await laptop.post(`${accountPath}/password`, {
      current_password: person.password,
      password: 'short',
      password_confirmation: 'short',
    });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /id="new-password-error" class="field-error">Choose a password of at least 12 characters/);
    const differ = await laptop.post(`${accountPath}/password`, {
      current_password: person.password,
      password: next,
      password_confirmation: 'something else',
    });
    assert.equal(differ.statusCode, 400);
    assert.match(differ.body, /id="new-password-confirmation-error" class="field-error">The two passwords differ/);

    const changed = await laptop.post(`${accountPath}/password`, {
      current_password: person.password,
      password: next,
      password_confirmation: next,
    });
    assert.equal(changed.statusCode, 303);
    const after = await laptop.get(accountPath);
    assert.equal(after.statusCode, 200, 'this session goes on');
    assert.match(after.body, /Password changed/);
    assert.equal((await phone.get(accountPath)).statusCode, 303, 'the other session ended');
    assert.equal((await harness.browser({ address: '198.51.100.92' }).signIn(person.email, person.password)).statusCode, 401);
    assert.equal((await harness.browser({ address: '198.51.100.93' }).signIn(person.email, next)).statusCode, 303);
  });

  test('the name is changed; an empty one is refused on its field', async () => {
    const person = await harness.person(orgId, 'member');
    const browser = await signedIn(person, '198.51.100.95');
    await browser.get(accountPath);
    const empty = await browser.post(`${accountPath}/name`, { name: '   ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /id="name-error" class="field-error">Enter your name/);
    const saved = await browser.post(`${accountPath}/name`, { name: 'Ada <Lovelace>' });
    assert.equal(saved.statusCode, 303);
    const page = await browser.get(accountPath);
    assert.match(page.body, /Ada &lt;Lovelace&gt;/);
    assert.equal((await harness.deps.prisma.user.findUniqueOrThrow({ where: { id: person.userId } })).name, 'Ada <Lovelace>');
  });

  test('signed out, the page and its actions lead to sign-in', async () => {
    const browser = harness.browser({ address: '198.51.100.97' });
    const page = await browser.get(accountPath);
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/dashboard/sign-in');
  });
});
