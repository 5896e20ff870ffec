import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Harness, newOrgId, startHarness } from './support/harness.js';

// How the console reads its input (issue 28): cookies and forms through @fastify/cookie and @fastify/formbody,
// a key given twice or a body that is no form refused with a 400 page, a path parameter no id can have a 404
// page. The fuzz files (input-fuzz-*) send every malformation to every route; these pin what each answers.
describe('reading cookies, forms, queries and path parameters', () => {
  let harness: Harness;
  let owner: Browser;

  before(async () => {
    harness = await startHarness();
    const person = await harness.person(newOrgId(), 'owner');
    owner = harness.browser();
    assert.equal((await owner.signIn(person.email, person.password)).statusCode, 303);
    await owner.get('/dashboard/members');
  });
  after(() => harness.close());

  const cookie = () => [...owner.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const post = (url: string, payload: string, type = 'application/x-www-form-urlencoded') =>
    harness.app.inject({ method: 'POST', url, headers: { cookie: cookie(), 'content-type': type }, payload });
  const get = (url: string) => harness.app.inject({ method: 'GET', url, headers: { cookie: cookie() } });
  const isErrorPage = (body: string, heading: string) => body.includes(`<h1>${heading}</h1>`) && body.includes('Back to the console');

  test('a form field given twice is a 400 page naming it, before anything changes', async () => {
    const twice = await post('/dashboard/members/invitations', `_csrf=${owner.formToken}&email=a%40example.com&role=member&role=owner`);
    assert.equal(twice.statusCode, 400);
    assert.ok(isErrorPage(twice.body, 'That request was not valid'), twice.body);
    assert.match(twice.body, /The form gives &quot;role&quot; more than once\./);
    assert.equal(await harness.deps.prisma.invitation.count({ where: { email: 'a@example.com' } }), 0);
    const token = await post('/dashboard/sign-out', `_csrf=${owner.formToken}&_csrf=${owner.formToken}`);
    assert.equal(token.statusCode, 400);
    assert.equal((await get('/dashboard')).statusCode, 200, 'still signed in');
  });

  test('a form with bad percent-encoding is read as sent: the form is checked, not a 500', async () => {
    const invited = await post('/dashboard/members/invitations', `_csrf=${owner.formToken}&email=%E0%A4%A&role=%`);
    assert.equal(invited.statusCode, 400);
    assert.match(invited.body, /Enter an e-mail address\./);
  });

  test('a body that is no form is a 400 page, whatever it holds', async () => {
    for (const [type, payload] of [
      ['application/json', JSON.stringify({ _csrf: owner.formToken, email: 'b@example.com', role: 'member' })],
      ['application/json', '{"_csrf":5}'],
      ['text/plain', `_csrf=${owner.formToken}`],
      ['multipart/form-data; boundary=x', '--x--\r\n'],
    ] as const) {
      const response = await post('/dashboard/members/invitations', payload, type);
      assert.equal(response.statusCode, 400, `${type}: ${response.body}`);
      assert.ok(isErrorPage(response.body, 'That request was not valid'), response.body);
      assert.match(response.body, /application\/x-www-form-urlencoded/);
    }
    assert.equal(await harness.deps.prisma.invitation.count({ where: { email: 'b@example.com' } }), 0);
  });

  test('a query key given twice is a 400 page; one alone keeps working', async () => {
    const twice = await get('/dashboard/sign-in?next=a&next=b');
    assert.equal(twice.statusCode, 400);
    assert.match(twice.body, /The query gives &quot;next&quot; more than once\./);
    assert.equal((await get('/dashboard/sign-in?signed_out')).statusCode, 303, 'signed in: on to the console');
  });

  test('a path parameter longer than any id is a 404 page; a path that is not valid percent-encoding a 400 page', async () => {
    const long = 'm'.repeat(65);
    const removed = await post(`/dashboard/members/${long}/remove`, `_csrf=${owner.formToken}`);
    assert.equal(removed.statusCode, 404, removed.body);
    assert.ok(isErrorPage(removed.body, 'Not found'), removed.body);
    const revoke = await get(`/dashboard/settings/api/keys/${long}/revoke`);
    assert.equal(revoke.statusCode, 404, revoke.body);
    const badPath = await get('/dashboard/members/%E0%A4%A/role');
    assert.equal(badPath.statusCode, 400);
    assert.ok(isErrorPage(badPath.body, 'That request was not valid'), badPath.body);
    assert.match(String(badPath.headers['content-security-policy']), /default-src 'self'/);
  });

  test("the OAuth endpoints refuse a parameter given twice or one that is not text with RFC 6749's invalid_request", async () => {
    // Every parameter a code exchange takes, so only the repetition (or the type) can be what is refused.
    const exchange = 'grant_type=authorization_code&client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&code_verifier=v&code=a';
    for (const [payload, type, reason] of [
      [`${exchange}&code=b`, 'application/x-www-form-urlencoded', /"code" more than once/],
      [JSON.stringify({ ...Object.fromEntries(new URLSearchParams(exchange)), code: { a: 1 } }), 'application/json', /"code" is not text/],
    ] as const) {
      const response = await harness.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': type }, payload });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().error, 'invalid_request');
      assert.match(response.json().error_description, reason);
    }
  });
});
