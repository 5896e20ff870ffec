import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform, type TestGateway } from '@voice/gateway/testing';
import { createInvitation } from '../src/domain/invitations.js';
import { Browser, invitePerson, newOrgId } from './support/harness.js';
import { type StandInTelephony, startStandInTelephony } from './support/telephony.js';

const cookieValue = (setCookie: string | string[] | undefined, name: string) =>
  ([] as string[]).concat(setCookie ?? []).flatMap((line) => new RegExp(`^${name}=([^;]*)`).exec(line)?.[1] ?? [])[0];

describe('the console through the gateway', () => {
  let platform: Platform<'console'>;
  let gateway: TestGateway;
  let api: StandInTelephony;
  let orgId: string;
  let key: string;
  let person: { email: string; password: string };

  before(async () => {
    api = await startStandInTelephony();
    platform = await startPlatform({ services: ['console'], gateway: { TELEPHONY_URL: api.url, TRUST_PROXY_HOPS: '1' } });
    gateway = platform.gateway;
    ({ orgId, key } = await platform.org());
    person = await invitePerson(platform.console.deps, orgId, 'owner');
  });
  after(async () => {
    await platform.close();
    api.close();
  });

  /** Signs in through the gateway as a browser would; returns the session token. */
  async function signIn(headers: Record<string, string> = {}): Promise<{ session: string; setCookie: string }> {
    const form = await gateway.app.inject({ method: 'GET', url: '/dashboard/sign-in', headers });
    assert.equal(form.statusCode, 200);
    const formToken = cookieValue(form.headers['set-cookie'], 'console_form') ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: { ...headers, cookie: `console_form=${formToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: person.email, password: person.password, _csrf: csrf }).toString(),
    });
    assert.equal(response.statusCode, 303, response.body);
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).join('\n');
    return { session: cookieValue(response.headers['set-cookie'], 'console_session') ?? '', setCookie };
  }

  test('sign-in and pages work through the gateway, with no API key', async () => {
    const { session, setCookie } = await signIn();
    assert.doesNotMatch(setCookie, /Secure/);
    const home = await gateway.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: `console_session=${session}` } });
    assert.equal(home.statusCode, 200);
    // The organization by the name the gateway has for it (platform.org names it Acme), not by its id.
    assert.match(home.body, /<h1>Organization Acme<\/h1>/);
    assert.doesNotMatch(home.body, new RegExp(orgId));
    // The console's own time reaches the browser through the gateway (the bench reads it).
    assert.match(String(home.headers['server-timing']), /^console;dur=\d+\.\d$/);
    const css = await gateway.app.inject({ method: 'GET', url: '/dashboard/static/console.css' });
    assert.equal(css.statusCode, 200);
  });

  test('the organization switcher and an invitation name each organization as the gateway does; one the gateway does not know shows its id', async () => {
    const names = ['Northwind Calls', 'Globex & <Leads>'];
    const orgIds = await Promise.all(
      names.map(async (name) => ((await gateway.admin({ kind: 'org.create', name, plan: 'starter' })) as { id: string }).id),
    );
    const unknown = newOrgId();
    const email = `switcher.${Date.now()}@example.com`;
    for (const [index, id] of [...orgIds, unknown].entries())
      await invitePerson(platform.console.deps, id, index === 0 ? 'owner' : 'member', { email });
    const browser = new Browser(gateway.app, '198.51.100.9');
    assert.equal((await browser.signIn(email, person.password)).statusCode, 303);
    const home = await browser.get('/dashboard');
    assert.equal(home.statusCode, 200);
    const options = [...home.body.matchAll(/<option value="([^"]+)"[^>]*>([^<]*)<\/option>/g)].map((match) => [match[1], match[2]]);
    assert.deepEqual(
      options.sort(),
      [
        [orgIds[0], 'Northwind Calls (owner)'],
        [orgIds[1], 'Globex &amp; &lt;Leads&gt; (member)'],
        [unknown, `${unknown} (member)`],
      ].sort(),
    );
    assert.match(home.body, /<h1>Organization Northwind Calls<\/h1>/);
    const members = await browser.get('/dashboard/members');
    assert.match(members.body, /<caption>People of organization Northwind Calls<\/caption>/);

    // An invitation's page names the organization too, before anyone signs in.
    const invitation = await createInvitation(platform.console.deps, {
      orgId: orgIds[1] as string,
      email: 'invitee@example.com',
      role: 'member',
      invitedBy: null,
    });
    const invitationPage = await gateway.app.inject({ method: 'GET', url: new URL(invitation.link).pathname });
    assert.equal(invitationPage.statusCode, 200);
    assert.match(invitationPage.body, /<h1>Join organization Globex &amp; &lt;Leads&gt;<\/h1>/);

    // Switching moves the names with it.
    assert.equal((await browser.post('/dashboard/organization', { org_id: orgIds[1] as string })).statusCode, 303);
    assert.match((await browser.get('/dashboard')).body, /<h1>Organization Globex &amp; &lt;Leads&gt;<\/h1>/);
  });

  test('behind an HTTPS ingress (X-Forwarded-Proto: https) the session cookie is Secure', async () => {
    const { setCookie } = await signIn({ 'x-forwarded-proto': 'https' });
    assert.match(setCookie, /console_session=[^;]+;.*; Secure/);
  });

  test('a session cookie is not a credential of the API, and never reaches an API service', async () => {
    const { session } = await signIn();
    const cookieOnly = await gateway.app.inject({
      method: 'GET',
      url: '/api/v1/phone/calls',
      headers: { cookie: `console_session=${session}` },
    });
    assert.equal(cookieOnly.statusCode, 401);
    assert.equal((cookieOnly.json() as { error: { code: string } }).error.code, 'missing');
    const withKey = await gateway.app.inject({
      method: 'GET',
      url: '/api/v1/phone/calls',
      headers: { ...bearer(key), cookie: `console_session=${session}` },
    });
    assert.equal(withKey.statusCode, 200);
    assert.ok(api.seen.length > 0);
    for (const headers of api.seen) assert.equal(headers.cookie, undefined);
  });

  test('an API key is not a credential of the console', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/dashboard/members', headers: bearer(key) });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/dashboard/sign-in');
  });

  test('the console stays out of the OpenAPI document', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, unknown>;
      'x-unavailable-services'?: string[];
    };
    assert.ok(Object.keys(document.paths).length > 0 || document['x-unavailable-services']);
    assert.equal(
      Object.keys(document.paths).some((path) => path.startsWith('/dashboard')),
      false,
    );
    assert.equal(document['x-unavailable-services']?.includes('console') ?? false, false);
  });
});
