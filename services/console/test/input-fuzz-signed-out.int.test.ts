import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bad,
  formFieldVariants,
  malformedCookies,
  queryVariants,
  refusedBodyVariants,
  sessionKeepingCookie,
  useFuzzPlatform,
} from './support/fuzz.js';
import { rawRequest } from './support/raw-http.js';

// Every console route with malformed input before sign-in (with the sign-in page's form cookie and token),
// and with malformed cookies in place of a session: no 500, and a page's error is a page. See support/fuzz.ts.
// Before sign-in no page calls the webhooks or mcp services, so the console alone runs behind the gateway.
describe('every console input, malformed, signed out, through the gateway', () => {
  const fuzz = useFuzzPlatform(['console']);
  test('the routes are collected from the console itself', () => {
    const names = fuzz().routes.map((route) => `${route.method} ${route.path}`);
    for (const expected of ['GET /dashboard', 'POST /dashboard/sign-in', 'POST /dashboard/members/:id/role', 'POST /oauth/token']) {
      assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
    }
    assert.ok(fuzz().routes.length >= 40, names.join(', '));
  });

  test('cookies, queries, forms and path segments get no 500', async () => {
    // Malformed path parameters are the signed-in file's: before sign-in they lead to the sign-in page.
    await fuzz().fuzz(
      'signed out',
      (route) => [
        ...queryVariants,
        ...malformedCookies,
        sessionKeepingCookie,
        ...(route.method === 'POST' ? [...formFieldVariants, ...refusedBodyVariants] : []),
      ],
      () => fuzz().signedOut(),
      { params: false },
    );
  });

  test('a path that is not valid percent-encoding: a 400 page from the console, a 400 from the gateway before it', async () => {
    const session = await fuzz().signedIn();
    const { platform } = fuzz();
    for (const path of [`/dashboard/${bad}`, `/dashboard/members/${bad}/role`, `/dashboard/invitations/${bad}`, '/dashboard/static/%zz']) {
      const direct = await rawRequest(platform.console.url, 'GET', path, { cookie: session.cookie });
      assert.equal(direct.status, 400, `${path}: ${direct.body}`);
      assert.match(String(direct.headers['content-type']), /^text\/html/);
      assert.match(direct.body, /<h1>That request was not valid<\/h1>/);
      assert.match(direct.body, /not valid percent-encoding/);
      assert.ok(direct.headers['content-security-policy']);
      assert.ok(direct.headers['request-id']);
      // The gateway's router refuses the path before proxying anything: its own 400 (the API's envelope).
      const proxied = await rawRequest(platform.url, 'GET', path, { cookie: session.cookie });
      assert.equal(proxied.status, 400, `${path}: ${proxied.body}`);
    }
    // Outside the pages the console keeps kit's envelope.
    const outside = await rawRequest(platform.console.url, 'GET', `/oauth/${bad}`);
    assert.equal(outside.status, 400);
    assert.match(String(outside.headers['content-type']), /^application\/json/);
  });
});
