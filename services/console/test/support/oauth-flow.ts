// The OAuth flows of the console's tests without a browser: register a client, sign in, approve (form posts
// through the gateway), exchange the code; MCP requests with a bearer token; what the gateway says of the
// grants (their status, the audit log). For the files that run a platform with the console and the gateway.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { bearer, type Platform } from '@voice/gateway/testing';
import { isTestOrg, liveOrgOf, oauthRpc } from '@voice/proto';
import { personIdentity } from '../../src/domain/identity.js';
import { hashToken } from '../../src/domain/tokens.js';
import { Browser } from './harness.js';

export interface FlowContext {
  platform: Platform<'console'>;
  /** The public address (the gateway's, or a forwarder to it): the issuer and the resources' base. */
  base: string;
  /** The owner of organization A, who approves unless a test says who. */
  owner: { email: string; password: string; userId: string };
  orgA: { orgId: string; key: string };
  mcpUrl: URL;
}

/** The helpers, bound to a context made in `before` (hence a function). */
export function oauthFlow(c: () => FlowContext) {
  async function tokenRequest(fields: Record<string, string>): Promise<Response> {
    return fetch(`${c().base}/oauth/token`, { method: 'POST', body: new URLSearchParams(fields) });
  }

  /**
   * The flow without a browser: register, sign in, approve (form posts through the gateway); returns the code.
   * The owner of organization A approves read access to /api/mcp unless told otherwise.
   */
  async function codeFor(
    options: {
      orgId?: string;
      person?: { email: string; password: string };
      resource?: string;
      scope?: 'read' | 'read-write';
      /** What the person chooses on the consent page (the scope asked for unless told). */
      chosenScope?: 'read' | 'read-write';
      clientName?: string;
      consent?: (page: string) => void;
      /** The data chosen on the consent page (`live` or `test`; anything else to see it refused); none sent unless told. */
      mode?: string;
    } = {},
  ) {
    const resource = options.resource ?? c().mcpUrl.toString();
    const scope = options.scope ?? 'read';
    const redirect = 'http://127.0.0.1/cb';
    const registered = await fetch(`${c().base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: options.clientName ?? 'Refusals', redirect_uris: [redirect] }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = 'v'.repeat(20) + Math.random().toString(36).slice(2).padEnd(30, 'x');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:45555/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
      state: 's',
      scope,
    });
    const person = options.person ?? c().owner;
    const browser = new Browser(c().platform.gateway.app, '198.51.100.40');
    assert.equal((await browser.signIn(person.email, person.password)).statusCode, 303);
    const consent = await browser.get(`/dashboard/oauth/authorize?${query}`);
    assert.equal(consent.statusCode, 200, consent.body);
    options.consent?.(consent.body);
    const approved = await browser.post('/dashboard/oauth/authorize', {
      ...Object.fromEntries(query),
      org_id: options.orgId ?? c().orgA.orgId,
      scope: options.chosenScope ?? scope,
      monthly_quota: '100',
      ...(options.mode === undefined ? {} : { mode: options.mode }),
      decision: 'approve',
    });
    assert.equal(approved.statusCode, 303, approved.body);
    const code = new URL(approved.headers.location as string).searchParams.get('code') ?? '';
    const exchange = (overrides: Record<string, string> = {}) =>
      tokenRequest({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:45555/cb',
        code_verifier: verifier,
        resource,
        ...overrides,
      });
    return { clientId, code, verifier, exchange };
  }

  /** A code exchanged for tokens; fails the test unless the exchange succeeds. */
  async function tokensFor(options: Parameters<typeof codeFor>[0] = {}) {
    const flow = await codeFor(options);
    const exchanged = await flow.exchange();
    assert.equal(exchanged.status, 200, await exchanged.clone().text());
    const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string; scope: string };
    return { ...flow, ...tokens, grant: await grantOfCode(flow.code) };
  }

  /** One JSON-RPC request to an MCP URL with a bearer token, as a client without the SDK sends it. */
  async function mcpRequest(token: string, path: string, method: string, params?: object) {
    const response = await fetch(`${c().base}${path}`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : undefined) as {
        result?: { tools?: { name: string }[]; isError?: boolean; content?: { text: string }[]; structuredContent?: { id?: string } };
        error?: { code: string; message: string };
      },
    };
  }

  /** A tool called over MCP with a bearer token: the JSON-RPC answer. */
  const callTool = (token: string, path: string, name: string, args: object) =>
    mcpRequest(token, path, 'tools/call', { name, arguments: args });

  /** The organization's audit records about one grant, as an API key of the organization reads them. */
  async function auditOfGrant(key: string, grantId: string) {
    const response = await fetch(`${c().base}/api/v1/audit-log?key_id=${grantId}`, { headers: bearer(key) });
    assert.equal(response.status, 200);
    return ((await response.json()) as { data: Array<{ actor_type: string; key_id: string; reason: string | null; path: string }> }).data;
  }

  /** The organization's grants (a test twin's when its id is one) as the gateway has them now, asked as its owner. */
  async function grantsOf(orgId: string) {
    const user = await c().platform.console.deps.prisma.user.findUniqueOrThrow({ where: { id: c().owner.userId } });
    const mode = isTestOrg(orgId) ? ('test' as const) : ('live' as const);
    const signedIn = { sessionHash: '', csrfToken: '', user, orgId: liveOrgOf(orgId), role: 'owner' as const, mode, memberships: [] };
    return (await c().platform.console.deps.bus.call(oauthRpc.listGrants, personIdentity(signedIn, 'req_test', 'pro'), {})).data;
  }

  /** The grant a code was issued for. */
  async function grantOfCode(code: string) {
    const stored = await c().platform.console.deps.prisma.oAuthCode.findUniqueOrThrow({ where: { codeHash: hashToken(code) } });
    return (await grantsOf(stored.orgId)).find((grant) => grant.id === stored.grantId);
  }

  /** A newly registered client's authorization request (its parameters), for the consent page tests. */
  async function registeredRequest(name: string) {
    const registered = await fetch(`${c().base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: ['https://app.example.com/cb'] }),
    });
    return {
      response_type: 'code',
      client_id: ((await registered.json()) as { client_id: string }).client_id,
      redirect_uri: 'https://app.example.com/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: c().mcpUrl.toString(),
    };
  }

  /**
   * The audit log says the platform ended the grant, and why: actor `system`, never the grantor (who sent
   * no revocation); the grant's own records are its calls.
   */
  async function assertEndedBySystem(grantId: string, reason: string, key = c().orgA.key) {
    const ends = (await auditOfGrant(key, grantId)).filter((record) => record.actor_type !== 'grant');
    assert.deepEqual(
      ends.map((record) => [record.actor_type, record.key_id, record.reason, record.path]),
      [['system', grantId, reason, `/dashboard/settings/connected-apps/${grantId}/revoke`]],
    );
    const byPeople = await fetch(`${c().base}/api/v1/audit-log?actor_type=user&path_prefix=/dashboard/settings/connected-apps/${grantId}`, {
      headers: bearer(key),
    });
    assert.deepEqual(((await byPeople.json()) as { data: unknown[] }).data, [], 'no person is said to have revoked it');
  }

  const errorOf = async (response: Response) => {
    assert.equal(response.headers.get('cache-control'), 'no-store');
    // Browser-based clients (the MCP Inspector's web UI) read these answers from their own origin.
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    return ((await response.json()) as { error: string }).error;
  };

  return {
    tokenRequest,
    codeFor,
    tokensFor,
    mcpRequest,
    callTool,
    auditOfGrant,
    grantsOf,
    grantOfCode,
    registeredRequest,
    assertEndedBySystem,
    errorOf,
  };
}
