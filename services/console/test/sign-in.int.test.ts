import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, newOrgId, startHarness } from './support/harness.js';

describe('signing in over HTTP', () => {
  let harness: Harness;
  let orgId: string;
  let person: { email: string; password: string };

  before(async () => {
    harness = await startHarness();
    orgId = newOrgId();
    person = await harness.person(orgId, 'owner');
  });
  after(() => harness.close());

  test('the form signs in: an HttpOnly, SameSite=Lax session cookie for /dashboard, then the home page of the organization', async () => {
    const browser = harness.browser();
    const form = await browser.get('/dashboard/sign-in');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="email">/);
    const response = await browser.post('/dashboard/sign-in', { email: person.email.toUpperCase(), password: person.password });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/dashboard');
    const setCookie = String(response.headers['set-cookie']);
    // Exactly these attributes, in whatever order the serializer writes them.
    const [pair, ...attributes] = setCookie.split('; ');
    assert.match(pair ?? '', /^console_session=[A-Za-z0-9_-]{43}$/);
    const maxAge = `Max-Age=${Math.floor(harness.deps.env.SESSION_ABSOLUTE_TIMEOUT_MS / 1000)}`;
    assert.deepEqual(attributes.sort(), ['HttpOnly', maxAge, 'Path=/dashboard', 'SameSite=Lax']);
    assert.doesNotMatch(setCookie, /Secure/, 'plain HTTP without a proxy saying HTTPS');
    const home = await browser.get('/dashboard');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, new RegExp(`Organization ${orgId}`));
    assert.match(home.headers['content-security-policy'] as string, /default-src 'self'; script-src 'self'/);
    assert.equal(home.headers['cache-control'], 'no-store');
  });

  test('the session cookie is Secure when the gateway reports HTTPS', async () => {
    const browser = harness.browser();
    await browser.get('/dashboard/sign-in');
    const response = await harness.app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `console_form=${browser.cookies.get('console_form')}`,
        'x-forwarded-proto': 'https',
      },
      payload: new URLSearchParams({ email: person.email, password: person.password, _csrf: browser.formToken ?? '' }).toString(),
    });
    assert.equal(response.statusCode, 303);
    assert.match(String(response.headers['set-cookie']), /; Secure/);
  });

  test('a cookie that is not valid percent-encoding, or not a token the console made, counts as none (issue 28)', async () => {
    for (const value of ['%E0%A4%A', '%', 'made-up', 'a'.repeat(4000)]) {
      const home = await harness.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: `console_session=${value}` } });
      assert.equal(home.statusCode, 303, home.body);
      assert.equal(home.headers.location, '/dashboard/sign-in');
      // A form cookie the console did not make is replaced by a fresh one, on the page and in the cookie.
      const form = await harness.app.inject({ method: 'GET', url: '/dashboard/sign-in', headers: { cookie: `console_form=${value}` } });
      assert.equal(form.statusCode, 200, form.body);
      const fresh = /^console_form=([A-Za-z0-9_-]{43});/.exec(String(form.headers['set-cookie']))?.[1];
      assert.ok(fresh);
      assert.match(form.body, new RegExp(`name="_csrf" value="${fresh}"`));
      // Posting the malformed value back as the form token is refused (403), never a 500.
      const posted = await harness.app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { cookie: `console_form=${value}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `_csrf=${encodeURIComponent(value)}&email=a%40example.com&password=x`,
      });
      assert.equal(posted.statusCode, 403, posted.body);
      assert.match(posted.body, /security token/);
    }
  });

  test('a wrong password and an unknown address get the same answer', async () => {
    const wrongPassword = await harness.browser({ address: '198.51.100.2' }).signIn(person.email, 'not the password at all');
    const unknownEmail = await harness.browser({ address: '198.51.100.3' }).signIn('nobody@example.com', 'not the password at all');
    assert.equal(wrongPassword.statusCode, 401);
    assert.equal(unknownEmail.statusCode, 401);
    const message = (body: string) => /<p class="notice error" role="alert">([^<]+)<\/p>/.exec(body)?.[1];
    assert.equal(message(wrongPassword.body), 'The e-mail address or the password is wrong.');
    assert.equal(message(unknownEmail.body), message(wrongPassword.body));
    assert.doesNotMatch(String(wrongPassword.headers['set-cookie'] ?? ''), /console_session/);
  });

  test('pages need a session: without one, the sign-in page; an API key in Authorization is not one', async () => {
    const anonymous = await harness.app.inject({ method: 'GET', url: '/dashboard' });
    assert.equal(anonymous.statusCode, 303);
    assert.equal(anonymous.headers.location, '/dashboard/sign-in');
    const withKey = await harness.app.inject({
      method: 'GET',
      url: '/dashboard/members',
      headers: { authorization: 'Bearer vk_live_0000000000000000000000000000000000000' },
    });
    assert.equal(withKey.statusCode, 303);
    const forged = await harness.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: 'console_session=made-up-token' } });
    assert.equal(forged.statusCode, 303);
  });

  test('signing out ends the session: the old cookie opens nothing', async () => {
    const browser = harness.browser();
    await browser.signIn(person.email, person.password);
    const token = browser.cookies.get('console_session');
    await browser.get('/dashboard');
    const out = await browser.post('/dashboard/sign-out', {});
    assert.equal(out.statusCode, 303);
    assert.equal(browser.cookies.has('console_session'), false);
    const replay = await harness.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: `console_session=${token}` } });
    assert.equal(replay.statusCode, 303);
  });

  test('the sign-in form itself needs its form token (no forged sign-in from another site)', async () => {
    const browser = harness.browser();
    await browser.get('/dashboard/sign-in');
    const response = await browser.post('/dashboard/sign-in', { email: person.email, password: person.password }, { csrf: false });
    assert.equal(response.statusCode, 403);
    assert.equal(browser.cookies.has('console_session'), false);
  });

  test('the stylesheet is served from the console itself; unknown pages are an HTML 404', async () => {
    const css = await harness.app.inject({ method: 'GET', url: '/dashboard/static/console.css' });
    assert.equal(css.statusCode, 200);
    assert.match(css.headers['content-type'] as string, /text\/css/);
    const missing = await harness.app.inject({ method: 'GET', url: '/dashboard/static/nothing.js' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.headers['content-type'] as string, /text\/html/);
  });
});
