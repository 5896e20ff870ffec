// Done means (issue 18): the official MCP SDK client, with its own OAuth support, connects to /api/mcp
// through the gateway from nothing but the URL — discovery from the 401, registration (dynamic, then a
// client ID metadata document), the consent page driven in headless Chromium, the code exchanged, tools
// listed and called, the token refreshed after expiry — and is refused once the person revokes it in
// Connected apps. Then every refusal the issue lists, each with its documented error, and an axe check
// of the consent and Connected apps pages. Real gateway, console, MCP and telephony services.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { eventually, freePort } from '@voice/kit/testing';
import type { Page } from 'playwright-core';
import { blockingViolations, describeViolations } from './support/axe.js';
import { type SharedChromium, sharedChromium } from './support/chromium.js';
import { type ClientMetadataServer, startClientMetadataServer } from './support/client-metadata-server.js';
import { Browser, invitePerson } from './support/harness.js';
import { oauthFlow } from './support/oauth-flow.js';

const screenshotDir = process.env.CONSOLE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : null;
/** Access tokens live this long here (the gateway's OAUTH_ACCESS_TOKEN_SECONDS), so the test sees one expire. */
const accessTokenSeconds = 4;
/** The MCP tools a read grant lists. */
const readTools = 27;

/** The redirect URI's server: a native client's loopback listener, which keeps what the browser brought back. */
async function startCallbackServer(): Promise<{ server: Server; url: string; next(): Promise<URLSearchParams> }> {
  let waiting: ((query: URLSearchParams) => void) | undefined;
  const arrived: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Only the redirect counts: the browser also asks this origin for a favicon.
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    const query = url.searchParams;
    if (waiting) waiting(query);
    else arrived.push(query);
    waiting = undefined;
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const first = arrived.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => (waiting = resolve));
    },
  };
}

/** An MCP client's OAuth state, in memory, as the SDK's `OAuthClientProvider` asks for it. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  /** Every token set the client was given, oldest first. */
  readonly history: OAuthTokens[] = [];
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK test client', redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
    this.history.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}

describe('MCP over OAuth: the SDK client through the gateway, the console as authorization server', () => {
  let platform: Platform<'telephony' | 'mcp' | 'console'>;
  let chromium: SharedChromium | undefined;
  let documents: ClientMetadataServer;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let orgA: { orgId: string; key: string };
  let orgB: { orgId: string; key: string };
  let owner: { email: string; password: string; userId: string };
  let mcpUrl: URL;
  let base: string;
  let forwarder: NetServer;
  const forwarded = new Set<Socket>();

  before(async () => {
    documents = await startClientMetadataServer();
    callback = await startCallbackServer();
    // The public address must be known before the gateway and the console start (the issuer, the resource
    // and the metadata are built from it), and the gateway listens on a port of its own choosing: a
    // forwarder on a port picked first is the public address.
    const publicPort = await freePort();
    base = `http://127.0.0.1:${publicPort}`;
    platform = await startPlatform({
      services: ['telephony', 'mcp', 'console'],
      console: {
        PUBLIC_BASE_URL: base,
        OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES: 'true',
        OAUTH_CLIENT_METADATA_CA_FILE: documents.caFile,
      },
      gateway: { PUBLIC_BASE_URL: base, OAUTH_ACCESS_TOKEN_SECONDS: String(accessTokenSeconds) },
    });
    const gatewayPort = Number(new URL(platform.url).port);
    forwarder = createNetServer((socket) => {
      forwarded.add(socket);
      socket.on('close', () => forwarded.delete(socket));
      const upstream = connect(gatewayPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => forwarder.listen(publicPort, '127.0.0.1', resolve));
    mcpUrl = new URL(`${base}/api/mcp`);
    chromium = await sharedChromium();
    orgA = await platform.org({ plan: 'pro' });
    orgB = await platform.org({ plan: 'pro' });
    owner = await invitePerson(platform.console.deps, orgA.orgId, 'owner');
  });
  after(async () => {
    await chromium?.release();
    // Clients keep connections alive; the forwarder ends them rather than waiting for them.
    for (const socket of forwarded) socket.destroy();
    await new Promise((resolve) => (forwarder ? forwarder.close(resolve) : resolve(undefined)));
    await platform?.close();
    callback?.server.close();
    await documents?.close();
  });

  /** A person's browser on the gateway's address, signed out. */
  async function personPage(): Promise<Page> {
    const context = await (chromium as SharedChromium).browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    return context.newPage();
  }

  /** Drives the authorization page: sign in, choose the organization and read, approve; returns what reached the redirect URI. */
  async function approveInBrowser(page: Page, url: URL, options: { signIn: boolean; screenshot?: string }): Promise<URLSearchParams> {
    const arrived = callback.next();
    await page.goto(url.toString());
    if (options.signIn) {
      await page.getByLabel('E-mail address').fill(owner.email);
      await page.getByLabel('Password').fill(owner.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('heading', { name: /^Connect / }).waitFor();
    await page.getByLabel('Organization').selectOption(orgA.orgId);
    await page.getByRole('radio', { name: /^Read: / }).check();
    await page.getByLabel('Monthly quota (requests)').fill('500');
    if (options.screenshot && screenshotDir) {
      await mkdir(screenshotDir, { recursive: true });
      await page.screenshot({ path: `${screenshotDir}${options.screenshot}.png`, fullPage: true });
    }
    await page.getByRole('button', { name: 'Approve' }).click();
    return arrived;
  }

  /** The SDK's whole flow from the URL: 401 → discovery → registration → consent → code → connected client. */
  async function connectWithOAuth(provider: MemoryProvider, page: Page, signIn: boolean, url = mcpUrl): Promise<Client> {
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider })), /Unauthorized/);
    assert.ok(provider.authorizationUrl, 'the SDK was sent to the authorization page');
    assert.equal(`${provider.authorizationUrl.origin}${provider.authorizationUrl.pathname}`, `${base}/oauth/authorize`);
    assert.equal(provider.authorizationUrl.searchParams.get('resource'), url.toString());
    const answer = await approveInBrowser(page, provider.authorizationUrl, { signIn, screenshot: signIn ? 'oauth-consent' : undefined });
    assert.equal(answer.get('iss'), base);
    const code = answer.get('code');
    assert.ok(code, `a code came back: ${answer}`);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(code);
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return client;
  }

  test('the SDK client signs in by dynamic registration, works, refreshes, and is refused once revoked', async () => {
    const page = await personPage();
    const provider = new MemoryProvider(callback.url);
    const client = await connectWithOAuth(provider, page, true);
    assert.match(String(provider.client?.client_id), /^cli_/, 'registered dynamically');
    const tools = await client.listTools();
    assert.equal(tools.tools.length, readTools, 'a read grant lists the read tools');
    const calls = await client.callTool({ name: 'service_list_calls', arguments: {} });
    assert.notEqual(calls.isError, true, JSON.stringify(calls));
    // On a loaded machine the first token may already have expired and been refreshed by now: count from here.
    const tokensSoFar = provider.history.length;
    assert.ok(tokensSoFar >= 1, 'the code was exchanged for tokens');

    // The access token expires; the SDK refreshes it (rotating the refresh token) and goes on.
    const firstTokens = provider.history.at(-1) as OAuthTokens;
    await eventually('the first access token expires', async () => {
      const expired = await mcpRequest(firstTokens.access_token, '/api/mcp', 'tools/list');
      return expired.status === 401;
    });
    const again = await client.callTool({ name: 'service_list_calls', arguments: {} });
    assert.notEqual(again.isError, true, JSON.stringify(again));
    assert.equal(provider.history.length, tokensSoFar + 1, 'the token was refreshed once');
    assert.notEqual(provider.history.at(-1)?.refresh_token, firstTokens.refresh_token, 'refresh tokens rotate');

    // The person revokes the app in Connected apps.
    await page.goto('/dashboard/settings/connected-apps');
    await page.getByRole('link', { name: 'Revoke SDK test client' }).click();
    await page.getByRole('button', { name: 'Revoke SDK test client' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    assert.match((await page.locator('tbody').textContent()) ?? '', /Revoked/);
    const lastRefresh = provider.history.at(-1)?.refresh_token ?? '';
    await eventually('the revoked grant is refused', async () => {
      await assert.rejects(client.callTool({ name: 'service_list_calls', arguments: {} }));
      return true;
    });
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: lastRefresh,
      client_id: String(provider.client?.client_id),
    });
    assert.equal(refreshed.status, 400);
    assert.equal(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
    await client.close().catch(() => {});
    await page.context().close();
  });

  test('a grant works in the 2026-07-28 era too: the v2 SDK client with its access token lists and calls what the grant allows', async () => {
    const page = await personPage();
    const provider = new MemoryProvider(callback.url);
    const legacy = await connectWithOAuth(provider, page, true);
    // The same provider (its registration and tokens): the v2 client refreshes an expired access token too.
    const modern = new ModernClient({ name: 'oauth-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new ModernTransport(mcpUrl, { authProvider: provider }));
    const tools = await modern.listTools();
    assert.equal(tools.tools.length, readTools, 'a read grant lists the read tools in the 2026 era as in 2025');
    const calls = await modern.callTool({ name: 'service_list_calls', arguments: {} });
    assert.notEqual(calls.isError, true, JSON.stringify(calls));
    await Promise.allSettled([modern.close(), legacy.close()]);
    await page.context().close();
  });

  test('the SDK client signs in at a toolset read-only URL: the token is for that URL, which lists its toolset read-only', async () => {
    const page = await personPage();
    const provider = new MemoryProvider(callback.url);
    // calls, read-only: a read-write grant would see the same; this one is read (approveInBrowser picks Read).
    const url = new URL(`${base}/api/mcp/x/calls,platform/readonly`);
    const client = await connectWithOAuth(provider, page, true, url);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'service_call_stats',
      'service_check_dnc',
      'service_get_approval',
      'service_get_call',
      'service_get_sms',
      'service_get_usage',
      'service_list_approvals',
      'service_list_audit_log',
      'service_list_calls',
      'service_list_dnc',
      'service_list_sms',
    ]);
    const grant = await platform.console.deps.prisma.oAuthRefreshToken.findFirst({
      where: { clientId: String(provider.client?.client_id) },
      select: { resource: true },
    });
    assert.equal(grant?.resource, url.toString(), 'the grant keeps the resource it was asked for');
    // A refresh that names the resource names that one; /api/mcp itself is another resource here.
    const refreshNaming = (resource: URL) =>
      tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: provider.history.at(-1)?.refresh_token ?? '',
        client_id: String(provider.client?.client_id),
        resource: resource.toString(),
      });
    const other = await refreshNaming(mcpUrl);
    assert.equal(other.status, 400);
    assert.equal(((await other.json()) as { error: string }).error, 'invalid_target');
    const same = await refreshNaming(url);
    assert.equal(same.status, 200);
    await client.close().catch(() => {});
    await page.context().close();
  });

  test('the SDK client signs in with a client ID metadata document served over https', async () => {
    const documentUrl = `${documents.origin}/oauth/client.json`;
    documents.serve('/oauth/client.json', {
      client_id: documentUrl,
      client_name: 'Document client',
      redirect_uris: [callback.url],
      token_endpoint_auth_method: 'none',
    });
    const page = await personPage();
    const provider = new MemoryProvider(callback.url, documentUrl);
    const client = await connectWithOAuth(provider, page, true);
    assert.equal(provider.client?.client_id, documentUrl, 'the URL is the client_id');
    assert.equal((await client.listTools()).tools.length, readTools);
    await client.close();
    await page.context().close();
  });

  const { tokenRequest, codeFor, mcpRequest, callTool, grantsOf, grantOfCode, registeredRequest, assertEndedBySystem, errorOf } = oauthFlow(
    () => ({ platform, base, owner, orgA, mcpUrl }),
  );

  test('refusals: wrong PKCE verifier, reused code (the grant is revoked), expired code', async () => {
    const wrong = await codeFor();
    const refused = await wrong.exchange({ code_verifier: 'w'.repeat(43) });
    assert.equal(refused.status, 400);
    assert.equal(await errorOf(refused), 'invalid_grant');

    const reused = await codeFor();
    const first = await reused.exchange();
    assert.equal(first.status, 200);
    const tokens = (await first.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number };
    assert.equal(tokens.token_type, 'Bearer');
    assert.ok(tokens.expires_in <= accessTokenSeconds);
    const second = await reused.exchange();
    assert.equal(await errorOf(second), 'invalid_grant');
    const reusedGrant = await grantOfCode(reused.code);
    assert.equal(reusedGrant?.status, 'revoked', 'the reuse revoked the grant');
    await assertEndedBySystem(reusedGrant?.id as string, 'code_reuse');
    assert.equal(
      await errorOf(await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: reused.clientId })),
      'invalid_grant',
    );

    const expired = await codeFor();
    const clock = platform.console.deps;
    const realNow = clock.now;
    clock.now = () => new Date(Date.now() + 61_000);
    try {
      assert.equal(await errorOf(await expired.exchange()), 'invalid_grant');
    } finally {
      clock.now = realNow;
    }
  });

  test('refusals: a reused refresh token revokes the grant; a token of organization A cannot reach organization B', async () => {
    const flow = await codeFor();
    const tokens = (await (await flow.exchange()).json()) as { access_token: string; refresh_token: string };
    const rotated = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: flow.clientId });
    assert.equal(rotated.status, 200);
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };

    // Organization B's call, looked up with organization A's token: not found, as for any id not A's.
    const queued = await fetch(`${base}/api/v1/phone/calls`, {
      method: 'POST',
      headers: { ...bearer(orgB.key), 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550188' }),
    });
    assert.equal(queued.status, 201, await queued.clone().text());
    const callB = ((await queued.json()) as { id: string }).id;
    const own = await fetch(`${base}/api/v1/phone/calls/${callB}`, { headers: bearer(orgB.key) });
    assert.equal(own.status, 200);
    const across = await callTool(next.access_token, '/api/mcp', 'service_get_call', { call_id: callB });
    assert.equal(across.body.result?.isError, true);
    assert.match(across.body.result?.content?.[0]?.text ?? '', /^not_found: /);

    const replay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: flow.clientId });
    assert.equal(await errorOf(replay), 'invalid_grant');
    const replayed = await grantOfCode(flow.code);
    assert.equal(replayed?.status, 'revoked', 'the replay revoked the grant');
    await assertEndedBySystem(replayed?.id as string, 'refresh_token_reuse');
    const successor = await tokenRequest({ grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: flow.clientId });
    assert.equal(await errorOf(successor), 'invalid_grant', 'the rotated successor dies with the grant');
  });

  test('consent rules: a member grants read only; a hand-made read-write approval is refused; members cannot revoke', async () => {
    const member = await invitePerson(platform.console.deps, orgA.orgId, 'member');
    const browser = new Browser(platform.gateway.app, '198.51.100.41');
    await browser.signIn(member.email, member.password);
    const query = await registeredRequest('Member app');
    const consent = await browser.get(`/dashboard/oauth/authorize?${new URLSearchParams(query)}`);
    assert.equal(consent.statusCode, 200);
    assert.doesNotMatch(consent.body, /value="read-write"/, 'no read-write choice for a member');
    const forged = await browser.post('/dashboard/oauth/authorize', {
      ...query,
      org_id: orgA.orgId,
      scope: 'read-write',
      monthly_quota: '10',
      decision: 'approve',
    });
    assert.equal(forged.statusCode, 403);
    const denied = await browser.post('/dashboard/oauth/authorize', { ...query, org_id: orgA.orgId, decision: 'deny' });
    assert.equal(new URL(denied.headers.location as string).searchParams.get('error'), 'access_denied');

    const apps = await browser.get('/dashboard/settings/connected-apps');
    assert.equal(apps.statusCode, 200);
    assert.doesNotMatch(apps.body, /Revoke…/, 'members see no revoke links');
    const active = (await grantsOf(orgA.orgId)).find((grant) => grant.status === 'active');
    assert.ok(active, 'the organization has an active grant to try');
    const handMade = await browser.post(`/dashboard/settings/connected-apps/${active.id}/revoke`, {});
    assert.equal(handMade.statusCode, 403);
    assert.equal((await grantsOf(orgA.orgId)).find((grant) => grant.id === active.id)?.status, 'active', 'nothing changed');
  });

  test('a Lite organization grants read only, and at its key limit the refusal is shown on the consent page', async () => {
    const lite = await platform.org({ plan: 'lite', scope: 'read' });
    const person = await invitePerson(platform.console.deps, lite.orgId, 'owner');
    const browser = new Browser(platform.gateway.app, '198.51.100.42');
    await browser.signIn(person.email, person.password);
    const query = await registeredRequest('Lite app');
    const consent = await browser.get(`/dashboard/oauth/authorize?${new URLSearchParams(query)}`);
    assert.doesNotMatch(consent.body, /value="read-write"/);
    const limited = await browser.post('/dashboard/oauth/authorize', {
      ...query,
      org_id: lite.orgId,
      scope: 'read',
      monthly_quota: '10',
      decision: 'approve',
    });
    assert.equal(limited.statusCode, 403);
    assert.match(limited.body, /role="alert"/);
    assert.match(limited.body, /An app counts as an API key/);
  });

  test('the consent and Connected apps pages have no serious or critical accessibility violations (axe-core)', async () => {
    const context = await (chromium as SharedChromium).browser.newContext({
      baseURL: base,
      bypassCSP: true,
      viewport: { width: 1280, height: 900 },
    });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const provider = new MemoryProvider(callback.url);
    const first = new Client({ name: 'axe', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })));
    await page.goto((provider.authorizationUrl as URL).toString());
    await page.getByLabel('E-mail address').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Connect / }).waitFor();
    const failures: string[] = [];
    const check = async (name: string, screenshot: boolean) => {
      const violations = await blockingViolations(page);
      if (violations.length > 0) failures.push(`${name}:\n  ${describeViolations(violations)}`);
      if (screenshotDir && screenshot) await page.screenshot({ path: `${screenshotDir}${name}.png`, fullPage: true });
    };
    // The consent page's picture is taken in the first test, filled in.
    await check('oauth-consent', false);
    await page.goto('/dashboard/settings/connected-apps');
    await check('connected-apps', true);
    assert.deepEqual(failures, [], failures.join('\n'));
    await context.close();
  });
});
