// The authorization server's checks that come before any grant: metadata, registration, the authorization
// request's client, redirect URI, PKCE and resource, client metadata documents (private address, size,
// content) and the token endpoint's answers to what it does not know. The flow with grants runs against
// the real gateway in oauth-mcp.int.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deleteEndedRecords } from '../src/domain/cleanup.js';
import { type ClientMetadataServer, startClientMetadataServer } from './support/client-metadata-server.js';
import { type Harness, newOrgId, startHarness } from './support/harness.js';

const base = 'http://localhost:8080';
const resource = `${base}/api/mcp`;
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function authorizeUrl(params: Record<string, string>): string {
  const defaults = {
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    state: 'st-1',
  };
  return `/dashboard/oauth/authorize?${new URLSearchParams({ ...defaults, ...params })}`;
}

describe('the OAuth authorization server, before a grant', () => {
  let harness: Harness;
  let strict: Harness;
  let documents: ClientMetadataServer;
  let clientId: string;
  const redirect = 'https://app.example.com/callback';

  before(async () => {
    documents = await startClientMetadataServer();
    // One console that may fetch local documents (as a test's client would need), one as production is.
    harness = await startHarness({
      OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES: 'true',
      OAUTH_CLIENT_METADATA_CA_FILE: documents.caFile,
    });
    strict = await startHarness({ OAUTH_CLIENT_METADATA_CA_FILE: documents.caFile });
    const registered = await harness.app.inject({
      method: 'POST',
      url: '/oauth/register',
      payload: { client_name: 'Test client', redirect_uris: [redirect, 'http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    clientId = registered.json().client_id;
  });
  after(async () => {
    await harness?.close();
    await strict?.close();
    await documents?.close();
  });

  test('metadata (RFC 8414) names the endpoints, S256 only, public clients and metadata documents', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    assert.equal(response.statusCode, 200);
    const metadata = response.json();
    assert.equal(metadata.issuer, base);
    assert.equal(metadata.authorization_endpoint, `${base}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${base}/oauth/token`);
    assert.equal(metadata.registration_endpoint, `${base}/oauth/register`);
    assert.equal(metadata.revocation_endpoint, `${base}/oauth/revoke`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(metadata.response_types_supported, ['code']);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['none']);
    assert.deepEqual(metadata.scopes_supported, ['read', 'read-write']);
    assert.equal(metadata.client_id_metadata_document_supported, true);
  });

  test('registration (RFC 7591) takes https and loopback redirect URIs only, and public clients only', async () => {
    const register = (payload: object) => harness.app.inject({ method: 'POST', url: '/oauth/register', payload });
    const plainHttp = await register({ redirect_uris: ['http://app.example.com/callback'] });
    assert.equal(plainHttp.statusCode, 400);
    assert.equal(plainHttp.json().error, 'invalid_redirect_uri');
    const fragment = await register({ redirect_uris: ['https://app.example.com/callback#x'] });
    assert.equal(fragment.json().error, 'invalid_redirect_uri');
    const none = await register({ redirect_uris: [] });
    assert.equal(none.json().error, 'invalid_redirect_uri');
    const secret = await register({ redirect_uris: [redirect], token_endpoint_auth_method: 'client_secret_basic' });
    assert.equal(secret.statusCode, 400);
    assert.equal(secret.json().error, 'invalid_client_metadata');
    const loopback = await register({ redirect_uris: ['http://localhost:6274/oauth/callback', 'http://[::1]/cb'] });
    assert.equal(loopback.statusCode, 201, loopback.body);
    assert.equal(loopback.json().token_endpoint_auth_method, 'none');
    assert.equal(
      await harness.deps.prisma.oAuthClient.count({ where: { name: 'app.example.com' } }),
      0,
      'refused registrations wrote nothing',
    );
  });

  test('registration is limited per client address', async () => {
    const limited = await startHarness({ OAUTH_REGISTRATIONS_PER_HOUR: '2' });
    try {
      const register = (address: string) =>
        limited.app.inject({ method: 'POST', url: '/oauth/register', remoteAddress: address, payload: { redirect_uris: [redirect] } });
      assert.equal((await register('203.0.113.5')).statusCode, 201);
      assert.equal((await register('203.0.113.5')).statusCode, 201);
      const third = await register('203.0.113.5');
      assert.equal(third.statusCode, 429);
      assert.equal(third.json().error, 'slow_down');
      assert.ok(Number(third.headers['retry-after']) > 0);
      assert.equal((await register('203.0.113.6')).statusCode, 201, 'another address is not held back');
      assert.equal(await limited.deps.prisma.oAuthClient.count(), 3);
    } finally {
      await limited.close();
    }
  });

  test('/oauth/authorize hands the request, query and all, to the page under /dashboard', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=x&state=a%20b' });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/dashboard/oauth/authorize?client_id=x&state=a%20b');
  });

  test('an unknown client or an unregistered redirect URI is an error page, never a redirect', async () => {
    const browser = harness.browser();
    const unknown = await browser.get(authorizeUrl({ client_id: 'cli_doesnotexist1', redirect_uri: redirect }));
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /no client with this client_id/);
    const other = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: 'https://attacker.example.com/callback' }));
    assert.equal(other.statusCode, 400);
    assert.equal(other.headers.location, undefined);
    assert.match(other.body, /is not registered for this client/);
    const prefix = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: `${redirect}/more` }));
    assert.equal(prefix.statusCode, 400, 'redirect URIs match exactly');
  });

  test('a loopback redirect URI may use any port (RFC 8252); a named host may not', async () => {
    const browser = harness.browser();
    const anyPort = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: 'http://127.0.0.1:45123/callback' }));
    assert.equal(anyPort.statusCode, 303);
    assert.match(
      anyPort.headers.location as string,
      /^\/dashboard\/sign-in\?next=/,
      'a valid request sends a signed-out person to sign in',
    );
    const otherPath = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: 'http://127.0.0.1:45123/other' }));
    assert.equal(otherPath.statusCode, 400);
  });

  test('after the client checks out, faults go back to it: plain PKCE, no PKCE, implicit, another server’s resource', async () => {
    const browser = harness.browser();
    const back = async (params: Record<string, string>) => {
      const response = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: redirect, ...params }));
      assert.equal(response.statusCode, 303);
      const location = new URL(response.headers.location as string);
      assert.equal(`${location.origin}${location.pathname}`, redirect);
      assert.equal(location.searchParams.get('state'), 'st-1');
      assert.equal(location.searchParams.get('iss'), base);
      return location.searchParams.get('error');
    };
    assert.equal(await back({ code_challenge_method: 'plain' }), 'invalid_request');
    assert.equal(await back({ code_challenge: '' }), 'invalid_request');
    assert.equal(await back({ response_type: 'token' }), 'unsupported_response_type');
    assert.equal(await back({ resource: 'https://other.example.com/api/mcp' }), 'invalid_target');
    assert.equal(await back({ resource: `${base}/api/v1` }), 'invalid_target');
    assert.equal(await back({ scope: 'admin' }), 'invalid_scope');
  });

  test('the resource may be a toolset or read-only URL of this MCP server, and nothing near it', async () => {
    const browser = harness.browser();
    for (const suffix of ['/readonly', '/x/leads', '/x/leads,calls', '/x/billing,platform/readonly']) {
      const accepted = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: redirect, resource: `${resource}${suffix}` }));
      assert.equal(accepted.statusCode, 303, suffix);
      assert.match(accepted.headers.location as string, /^\/dashboard\/sign-in\?next=/, `${suffix}: on to sign in`);
    }
    for (const refused of [
      `${resource}/x/nope`,
      `${resource}/x/`,
      `${resource}/x/leads/`,
      `${resource}/readonly/x/leads`,
      `${resource}/x/leads/readonly/more`,
      `${resource}x`,
      `${resource}?toolsets=leads`,
      `${resource}/x/leads#frag`,
      `https://other.example.com/api/mcp/x/leads`,
    ]) {
      const response = await browser.get(authorizeUrl({ client_id: clientId, redirect_uri: redirect, resource: refused }));
      assert.equal(response.statusCode, 303, refused);
      assert.equal(new URL(response.headers.location as string).searchParams.get('error'), 'invalid_target', refused);
    }
  });

  test('signing in from the authorization request comes back to it, and only to such a page', async () => {
    const orgId = newOrgId();
    const person = await harness.person(orgId, 'owner');
    const browser = harness.browser();
    const start = authorizeUrl({ client_id: clientId, redirect_uri: redirect });
    const toSignIn = await browser.get(start);
    const signInUrl = toSignIn.headers.location as string;
    const form = await browser.get(signInUrl);
    assert.match(form.body, /name="next" value="\/dashboard\/oauth\/authorize\?/);
    const signedIn = await browser.post('/dashboard/sign-in', { email: person.email, password: person.password, next: start });
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, start);
    const elsewhere = harness.browser();
    await elsewhere.get('/dashboard/sign-in');
    const open = await elsewhere.post('/dashboard/sign-in', {
      email: person.email,
      password: person.password,
      next: 'https://evil.example.com/',
    });
    assert.equal(open.headers.location, '/dashboard', 'any other next is ignored');
  });

  test('a client metadata document: used when valid, refused when it names another URL, is too large or is not JSON', async () => {
    const browser = harness.browser();
    const good = documents.serve('/good.json', {
      client_id: `${documents.origin}/good.json`,
      client_name: 'Document client',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    const ok = await browser.get(authorizeUrl({ client_id: good, redirect_uri: 'http://127.0.0.1:45999/cb' }));
    assert.equal(ok.statusCode, 303, ok.body);
    assert.match(ok.headers.location as string, /^\/dashboard\/sign-in/);

    const wrongId = documents.serve('/wrong-id.json', { client_id: 'https://elsewhere.example.com/c.json', redirect_uris: [redirect] });
    const refusedId = await browser.get(authorizeUrl({ client_id: wrongId, redirect_uri: redirect }));
    assert.equal(refusedId.statusCode, 400);
    assert.match(refusedId.body, /its client_id is not the URL it was fetched from/);

    const largeUrl = `${documents.origin}/large.json`;
    documents.serve('/large.json', { client_id: largeUrl, redirect_uris: [redirect], padding: 'x'.repeat(6 * 1024) });
    const large = await browser.get(authorizeUrl({ client_id: largeUrl, redirect_uri: redirect }));
    assert.equal(large.statusCode, 400);
    assert.match(large.body, /larger than 5120 bytes/);

    const text = documents.serve('/text.json', 'hello');
    const notJson = await browser.get(authorizeUrl({ client_id: text, redirect_uri: redirect }));
    assert.match(notJson.body, /it is not JSON/);

    const plainHttp = await browser.get(authorizeUrl({ client_id: 'http://app.example.com/c.json', redirect_uri: redirect }));
    assert.equal(plainHttp.statusCode, 400, 'an http client_id is neither a document nor a registered client');
  });

  test('a client metadata document on a private address is refused before any connection', async () => {
    const url = documents.serve('/private.json', { client_id: `${documents.origin}/private.json`, redirect_uris: [redirect] });
    const response = await strict.browser().get(authorizeUrl({ client_id: url, redirect_uri: redirect }));
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /private, loopback or link-local address/);
    const named = await strict.browser().get(authorizeUrl({ client_id: `https://localhost:1/c.json`, redirect_uri: redirect }));
    assert.equal(named.statusCode, 400);
    assert.match(named.body, /private, loopback or link-local address/, 'a name resolving to loopback is refused too');
  });

  test('the cleanup deletes codes and refresh tokens 30 days after they expired, and keeps the others', async () => {
    const now = harness.clock.now.getTime();
    const day = 24 * 60 * 60_000;
    const row = (hash: string, expiresAt: Date) => ({
      grantId: 'grt_cleanup0001',
      clientId,
      orgId: newOrgId(),
      userId: 'usr_cleanup0001',
      resource,
      expiresAt,
      codeHash: hash,
    });
    await harness.deps.prisma.oAuthCode.createMany({
      data: [
        { ...row('code-old', new Date(now - 31 * day)), redirectUri: redirect, codeChallenge: challenge },
        { ...row('code-recent', new Date(now - 29 * day)), redirectUri: redirect, codeChallenge: challenge },
      ],
    });
    const { codeHash: _old, ...token } = row('', new Date(now - 31 * day));
    await harness.deps.prisma.oAuthRefreshToken.createMany({
      data: [
        { ...token, tokenHash: 'refresh-old' },
        { ...token, tokenHash: 'refresh-live', expiresAt: new Date(now + day) },
      ],
    });
    const deleted = await deleteEndedRecords(harness.deps);
    assert.equal(deleted.oauthCodes, 1);
    assert.equal(deleted.oauthRefreshTokens, 1);
    const codes = await harness.deps.prisma.oAuthCode.findMany({ where: { grantId: 'grt_cleanup0001' } });
    assert.deepEqual(
      codes.map((code) => code.codeHash),
      ['code-recent'],
    );
    const tokens = await harness.deps.prisma.oAuthRefreshToken.findMany({ where: { grantId: 'grt_cleanup0001' } });
    assert.deepEqual(
      tokens.map((stored) => stored.tokenHash),
      ['refresh-live'],
    );
  });

  test('the token endpoint: RFC 6749 errors as JSON, never cached', async () => {
    const token = (fields: Record<string, string>) =>
      harness.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });
    const unknown = await token({
      grant_type: 'authorization_code',
      code: 'nope',
      client_id: clientId,
      redirect_uri: redirect,
      code_verifier: 'v'.repeat(43),
    });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error, 'invalid_grant');
    assert.equal(unknown.headers['cache-control'], 'no-store');
    assert.equal((await token({ grant_type: 'password' })).json().error, 'unsupported_grant_type');
    assert.equal((await token({ grant_type: 'authorization_code' })).json().error, 'invalid_request');
    assert.equal((await token({ grant_type: 'refresh_token', refresh_token: 'nope', client_id: clientId })).json().error, 'invalid_grant');
    const revoke = await harness.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'token=unknown-token',
    });
    assert.equal(revoke.statusCode, 200, 'RFC 7009: an unknown token is no error');
  });
});
