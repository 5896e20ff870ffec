// Toolsets and read-only mode as clients meet them: the SDK's own client and the MCP Inspector CLI through
// the gateway (routing, keys, scopes, RFC 9728 metadata of the toolset URLs), and the READMEs' ready client
// configurations, parsed with each client's documented schema and connected as written.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  selectResourceURL,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bearer, createGrantWithToken, createOrgWithKey, type Platform, startPlatform } from '@voice/gateway/testing';
import { gatewayHeaders, testIdentity } from '@voice/kit/testing';
import { isTestOnlyToolset, mcpSelection, mcpToolsets } from '@voice/proto';
import { z } from 'zod';
import { ToolCatalog } from '../src/mcp/catalog.js';

const catalog = new ToolCatalog();
const names = (tools: { name: string }[]) => tools.map((tool) => tool.name).sort();

/** What the catalogue serves a live key of this scope at this path with these headers. */
function expectedNames(scope: 'read' | 'read-write', path: string, headers: { toolsets?: string; readonly?: string } = {}): string[] {
  const selected = mcpSelection(path, headers);
  assert.ok(selected.ok, path);
  return names(catalog.list({ scope }, selected.selection));
}

/** The toolsets a live key may name (`testing` is for test credentials: test-mode.int.test.ts). */
const liveToolsets = mcpToolsets.filter((toolset) => !isTestOnlyToolset(toolset));

// The clients' configuration files, as their documentation states them (only the remote-server forms).
// Cursor, https://docs.cursor.com/context/mcp ("Remote server"): `mcpServers`, each with `url` and `headers`.
const cursorConfig = z.strictObject({
  mcpServers: z.record(z.string(), z.strictObject({ url: z.url(), headers: z.record(z.string(), z.string()).optional() })),
});
// VS Code, https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: top-level `servers` (not
// `mcpServers`) and `inputs`; a remote server has `type` "http" (or "sse"), `url`, `headers`, and `${input:id}`
// in a value is replaced by the input's answer.
const vscodeConfig = z.strictObject({
  inputs: z
    .array(z.strictObject({ type: z.literal('promptString'), id: z.string(), description: z.string(), password: z.boolean().optional() }))
    .optional(),
  servers: z.record(
    // Server names as VS Code's schema for mcp.json allows them.
    z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]*$/),
    z.strictObject({ type: z.enum(['http', 'sse']), url: z.url(), headers: z.record(z.string(), z.string()).optional() }),
  ),
});
// Claude Code, https://code.claude.com/docs/en/mcp (".mcp.json"): `mcpServers`, each remote one with
// `type` "http", `url` and `headers`; `${VAR}` in a value is expanded from the environment.
const claudeCodeConfig = z.strictObject({
  mcpServers: z.record(
    z.string(),
    z.strictObject({ type: z.literal('http'), url: z.url(), headers: z.record(z.string(), z.string()).optional() }),
  ),
});

const clientSchemas = { cursor: cursorConfig, vscode: vscodeConfig, 'claude-code': claudeCodeConfig };

interface ReadmeConfig {
  client: keyof typeof clientSchemas;
  tools: number;
  url: string;
  headers: Record<string, string>;
}

/** The configurations of the root README, each after its `<!-- client: NAME, tools: N -->` line. */
function readmeConfigs(): ReadmeConfig[] {
  const text = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const found: ReadmeConfig[] = [];
  for (const match of text.matchAll(/<!-- client: ([\w-]+), tools: (\d+) -->\n```json\n([\s\S]*?)\n```/g)) {
    const client = match[1] as keyof typeof clientSchemas;
    assert.ok(client in clientSchemas, `a schema for ${client}`);
    const parsed = clientSchemas[client].parse(JSON.parse(match[3] ?? ''));
    const servers = Object.values('servers' in parsed ? parsed.servers : parsed.mcpServers);
    assert.equal(servers.length, 1, `${client}: one server`);
    const server = servers[0] as { url: string; headers?: Record<string, string> };
    found.push({ client, tools: Number(match[2]), url: server.url, headers: server.headers ?? {} });
  }
  return found;
}

const run = promisify(execFile);
const inspectorCheck = fileURLToPath(new URL('../scripts/inspector-check.sh', import.meta.url));

describe('toolsets and read-only mode through the gateway', () => {
  let platform: Platform<'leads' | 'mcp'>;
  let gatewayUrl: string;
  let writeKey: string;
  let readKey: string;
  let orgId: string;
  const clients: Client[] = [];

  async function connect(credential: string, path: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'toolsets-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gatewayUrl}${path}`), {
        requestInit: { headers: { ...bearer(credential), ...headers } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function listed(key: string, path: string, headers: Record<string, string> = {}): Promise<string[]> {
    return names((await (await connect(key, path, headers)).listTools()).tools);
  }

  before(async () => {
    platform = await startPlatform({ services: ['leads', 'mcp'] });
    gatewayUrl = platform.url;
    const org = await createOrgWithKey(platform.gateway, { plan: 'pro', quota: 10_000 });
    writeKey = org.key;
    orgId = org.orgId;
    readKey = (
      (await platform.gateway.admin({ kind: 'key.create', orgId: org.orgId, scope: 'read', monthlyQuota: 1_000 })) as { key: string }
    ).key;
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await platform?.close();
  });

  test("each toolset's URL lists that toolset's tools, and the header lists the same", async () => {
    for (const toolset of liveToolsets) {
      const expected = expectedNames('read-write', `/api/mcp/x/${toolset}`);
      assert.ok(expected.length > 0, toolset);
      assert.deepEqual(await listed(writeKey, `/api/mcp/x/${toolset}`), expected, `${toolset} by URL`);
      assert.deepEqual(await listed(writeKey, '/api/mcp', { 'X-MCP-Toolsets': toolset }), expected, `${toolset} by header`);
    }
    const two = await listed(writeKey, '/api/mcp/x/leads,calls');
    assert.equal(two.length, 19);
    assert.deepEqual(await listed(writeKey, '/api/mcp', { 'X-MCP-Toolsets': 'leads,calls' }), two);
    assert.equal((await listed(writeKey, '/api/mcp')).length, 46, 'no selection: every tool');
  });

  test('a 2026-07-28 client (the v2 SDK) is offered the same tools at every toolset and read-only URL, by URL and by header', async () => {
    const modernListed = async (key: string, path: string, headers: Record<string, string> = {}) => {
      const client = new ModernClient({ name: 'toolsets-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(
        new ModernTransport(new URL(`${gatewayUrl}${path}`), { requestInit: { headers: { ...bearer(key), ...headers } } }),
      );
      try {
        return names((await client.listTools()).tools);
      } finally {
        await client.close();
      }
    };
    for (const toolset of liveToolsets) {
      for (const path of [`/api/mcp/x/${toolset}`, `/api/mcp/x/${toolset}/readonly`]) {
        assert.deepEqual(await modernListed(writeKey, path), expectedNames('read-write', path), path);
        assert.deepEqual(await modernListed(readKey, path), expectedNames('read', path), `${path}, read key`);
      }
      assert.deepEqual(
        await modernListed(writeKey, '/api/mcp', { 'X-MCP-Toolsets': toolset }),
        expectedNames('read-write', `/api/mcp/x/${toolset}`),
      );
    }
    assert.deepEqual(await modernListed(writeKey, '/api/mcp'), expectedNames('read-write', '/api/mcp'));
    assert.deepEqual(await modernListed(writeKey, '/api/mcp/readonly'), expectedNames('read', '/api/mcp'));
    assert.deepEqual(await modernListed(writeKey, '/api/mcp', { 'X-MCP-Readonly': 'true' }), expectedNames('read', '/api/mcp'));
  });

  test('a read key reaches the toolset URLs (scope read) and sees their read tools', async () => {
    assert.deepEqual(await listed(readKey, '/api/mcp/x/billing'), expectedNames('read', '/api/mcp/x/billing'));
    assert.deepEqual(await listed(readKey, '/api/mcp/x/billing'), [
      'service_get_invoice',
      'service_get_project',
      'service_list_invoices',
      'service_list_projects',
    ]);
  });

  test('read-only mode with a read-write key lists only the read tools, by URL and by header', async () => {
    const readTools = expectedNames('read', '/api/mcp');
    assert.equal(readTools.length, 27);
    assert.deepEqual(await listed(writeKey, '/api/mcp/readonly'), readTools);
    assert.deepEqual(await listed(writeKey, '/api/mcp', { 'X-MCP-Readonly': 'true' }), readTools);
    assert.deepEqual(await listed(writeKey, '/api/mcp/x/leads,billing/readonly'), [
      'service_get_invoice',
      'service_get_lead',
      'service_get_project',
      'service_list_invoices',
      'service_list_leads',
      'service_list_projects',
      'service_recent_leads',
    ]);
    assert.deepEqual(await listed(writeKey, '/api/mcp/x/leads', { 'X-MCP-Readonly': 'true' }), expectedNames('read', '/api/mcp/x/leads'));
  });

  test('read-only mode refuses a write call with forbidden_scope, and nothing is done', async () => {
    for (const [path, headers] of [
      ['/api/mcp/readonly', {}],
      ['/api/mcp', { 'X-MCP-Readonly': 'true' }],
      ['/api/mcp/x/leads/readonly', {}],
    ] as const) {
      const client = await connect(writeKey, path, headers);
      const result = (await client.callTool({ name: 'service_create_lead', arguments: { name: 'Readonly Nobody' } })) as CallToolResult;
      assert.equal(result.isError, true, path);
      assert.match(
        (result.content[0] as { text: string }).text,
        /^forbidden_scope: service_create_lead changes data and this connection is read-only/,
        path,
      );
      // A read tool still works there.
      const read = (await client.callTool({ name: 'service_list_leads', arguments: {} })) as CallToolResult;
      assert.notEqual(read.isError, true, JSON.stringify(read.content));
    }
    const full = await connect(writeKey, '/api/mcp/x/leads');
    const leads = (await full.callTool({ name: 'service_list_leads', arguments: {} })) as CallToolResult;
    const data = (leads.structuredContent as { data: Array<{ name: string }> }).data;
    assert.equal(data.filter((lead) => lead.name === 'Readonly Nobody').length, 0, 'no lead was created');
    // The same call with the same key outside read-only mode does act: the refusal was the mode's.
    const created = (await full.callTool({ name: 'service_create_lead', arguments: { name: 'Readwrite Somebody' } })) as CallToolResult;
    assert.notEqual(created.isError, true, JSON.stringify(created.content));
  });

  test('a tool outside the selected toolsets is an unknown tool', async () => {
    const client = await connect(writeKey, '/api/mcp/x/leads');
    await assert.rejects(client.callTool({ name: 'service_list_calls', arguments: {} }), /Unknown tool: service_list_calls/);
  });

  test('an unknown toolset is a 400 envelope naming the known ones, by URL and by header', async () => {
    const known = 'The toolsets are: leads, calls, sequences, billing, workspace, knowledge, platform, testing.';
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${gatewayUrl}${path}`, {
        method: 'POST',
        headers: { ...bearer(writeKey), 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    for (const [path, headers, param] of [
      ['/api/mcp/x/leads,sms', {}, 'toolsets'],
      ['/api/mcp', { 'X-MCP-Toolsets': 'sms' }, 'x-mcp-toolsets'],
      ['/api/mcp/x/sms/readonly', {}, 'toolsets'],
    ] as const) {
      const response = await post(path, headers);
      assert.equal(response.status, 400, path);
      const body = (await response.json()) as { error: { code: string; message: string; param: string; request_id: string } };
      assert.equal(body.error.code, 'invalid_request');
      assert.equal(body.error.message, `Unknown toolset "sms". ${known}`);
      assert.equal(body.error.param, param);
      assert.ok(body.error.request_id);
    }
    // The testing toolset exists for test credentials only: this live key naming it is told so, by URL and header.
    for (const [path, headers, param] of [
      ['/api/mcp/x/testing', {}, 'toolsets'],
      ['/api/mcp/x/calls,testing/readonly', {}, 'toolsets'],
      ['/api/mcp', { 'X-MCP-Toolsets': 'testing' }, 'x-mcp-toolsets'],
    ] as const) {
      const response = await post(path, headers);
      assert.equal(response.status, 400, path);
      const body = (await response.json()) as { error: { code: string; message: string; param: string } };
      assert.equal(body.error.code, 'invalid_request');
      assert.match(
        body.error.message,
        /^The testing toolset is for test credentials only \(a vk_test_ key, or a grant made in test mode\); this credential is live\./,
      );
      assert.equal(body.error.param, param);
    }
    const both = await post('/api/mcp/x/leads', { 'X-MCP-Toolsets': 'calls' });
    assert.equal(both.status, 400);
    assert.match(((await both.json()) as { error: { message: string } }).error.message, /not both/);
    const yes = await post('/api/mcp', { 'X-MCP-Readonly': 'yes' });
    assert.equal(yes.status, 400);
    assert.deepEqual(((await yes.json()) as { error: { message: string; param: string } }).error, {
      code: 'invalid_request',
      message: 'X-MCP-Readonly must be true or false.',
      param: 'x-mcp-readonly',
      request_id: yes.headers.get('request-id'),
    });
    const client = new Client({ name: 'toolsets-test', version: '1.0.0' });
    await assert.rejects(
      client.connect(
        new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/api/mcp/x/sms`), { requestInit: { headers: bearer(writeKey) } }),
      ),
      // The SDK's error carries the envelope as JSON text.
      /"code":"invalid_request","message":"Unknown toolset \\"sms\\"\. The toolsets are: leads, calls/,
    );
  });

  test('a toolset URL without a key: 401 naming its own RFC 9728 metadata, which names that URL', async () => {
    const path = '/api/mcp/x/leads,calls/readonly';
    const refused = await fetch(`${gatewayUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    const metadataUrl = `${gatewayUrl}/.well-known/oauth-protected-resource${path}`;
    assert.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`);
    const metadata = await fetch(metadataUrl);
    assert.equal(metadata.status, 200);
    assert.equal(metadata.headers.get('access-control-allow-origin'), '*');
    const document = (await metadata.json()) as { resource: string; authorization_servers: string[] };
    assert.equal(document.resource, `${gatewayUrl}${path}`);
    assert.deepEqual(document.authorization_servers, [gatewayUrl]);
    // The SDK's OAuth client finds it from the challenge or by itself, and takes its resource for this URL.
    const serverUrl = new URL(`${gatewayUrl}${path}`);
    assert.equal(extractWWWAuthenticateParams(refused).resourceMetadataUrl?.href, metadataUrl);
    const discovered = await discoverOAuthProtectedResourceMetadata(serverUrl);
    assert.equal((await selectResourceURL(serverUrl, {} as OAuthClientProvider, discovered))?.href, serverUrl.href);
    // An OAuth access token granted for that URL works there: a read-write grant, read-only by the URL.
    const { token } = await createGrantWithToken(platform.gateway, orgId, { scope: 'read-write', resourcePath: path });
    assert.deepEqual(names((await (await connect(token, path)).listTools()).tools), expectedNames('read', '/api/mcp/x/leads,calls'));
    const unknown = await fetch(`${gatewayUrl}/.well-known/oauth-protected-resource/api/mcp/x/sms`);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'not_found');
  });

  test('an access token’s resource, from the signed identity, bounds what the mcp service serves, whatever the request selects', async () => {
    // As if the gateway had let the token through on another URL: the mcp service still serves only the
    // grant's resource, /api/mcp/x/leads/readonly, intersected with what the request selects.
    const identity = testIdentity({ org_id: orgId, scope: 'read-write', resource: '/api/mcp/x/leads/readonly' });
    const rpc = async (url: string, body: object, headers: Record<string, string> = {}) => {
      const response = await platform.mcp.app.inject({
        method: 'POST',
        url,
        headers: {
          ...gatewayHeaders(identity, 'POST', url, platform.ctx.env.INTERNAL_SIGNING_SECRET as string),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        payload: { jsonrpc: '2.0', id: 1, ...body },
      });
      assert.equal(response.statusCode, 200, response.body);
      return JSON.parse(response.body) as {
        result: { tools?: { name: string }[]; isError?: boolean; content?: { text: string }[] };
        error?: { message: string };
      };
    };
    const list = async (url: string, headers: Record<string, string> = {}) =>
      names((await rpc(url, { method: 'tools/list' }, headers)).result.tools ?? []);
    const leadsRead = ['service_get_lead', 'service_list_leads', 'service_recent_leads'];
    assert.deepEqual(await list('/api/mcp'), leadsRead);
    assert.deepEqual(await list('/api/mcp', { 'x-mcp-readonly': 'false', 'x-mcp-toolsets': 'leads,calls' }), leadsRead);
    assert.deepEqual(await list('/api/mcp/x/calls'), [], 'a toolset the grant does not select is not served');
    const write = await rpc('/api/mcp', { method: 'tools/call', params: { name: 'service_create_lead', arguments: { name: 'Nope' } } });
    assert.equal(write.result.isError, true);
    assert.match(write.result.content?.[0]?.text ?? '', /^forbidden_scope: /);
    const sms = await rpc('/api/mcp', {
      method: 'tools/call',
      params: { name: 'service_send_sms', arguments: { to: '+14155550100', body: 'hi' } },
    });
    assert.match(sms.error?.message ?? '', /Unknown tool: service_send_sms/, 'a tool outside the grant is unknown');
  });

  test("the README's Cursor, VS Code and Claude Code configurations parse with their schemas and list what they state", async () => {
    const configs = readmeConfigs();
    // The first is the local one of "MCP client configuration"; the others are the ready files per client.
    assert.deepEqual(configs.map((config) => config.client).sort(), ['claude-code', 'claude-code', 'cursor', 'vscode']);
    for (const config of configs) {
      const url = new URL(config.url);
      assert.ok(['https://api.example.com', 'http://localhost:8080'].includes(url.origin), `${config.client}: ${url.origin}`);
      const headers = Object.fromEntries(
        // The key stands in for the placeholder (`vk_live_…`, `${input:…}`, `${VOICE_API_KEY}`); HTTP header names
        // are case-insensitive, and lower case merges with the test's own Authorization rather than doubling it.
        Object.entries(config.headers).map(([name, value]) => [
          name.toLowerCase(),
          name.toLowerCase() === 'authorization' ? `Bearer ${writeKey}` : value,
        ]),
      );
      assert.match(config.headers.Authorization ?? '', /^Bearer /, `${config.client}: a bearer key`);
      const tools = await listed(writeKey, url.pathname, headers);
      assert.equal(tools.length, config.tools, `${config.client}: the README says ${config.tools}`);
      assert.deepEqual(
        tools,
        expectedNames('read-write', url.pathname, { toolsets: headers['x-mcp-toolsets'], readonly: headers['x-mcp-readonly'] }),
      );
      if (config.client === 'cursor') assert.ok(tools.length <= 40, 'Cursor sends its model the first 40 tools only');
    }
  });

  test("the MCP Inspector CLI (1.0.3) lists each toolset's tools through the gateway", async () => {
    // The toolsets side by side: each check is a few processes (npx, the Inspector, node) that mostly start up.
    await Promise.all(
      liveToolsets.map(async (toolset) => {
        const url = `${gatewayUrl}/api/mcp/x/${toolset}`;
        const { stdout } = await run('bash', [inspectorCheck], {
          env: { ...process.env, URL: url, KEY: writeKey, INSPECTOR: '@modelcontextprotocol/inspector@1.0.3' },
          maxBuffer: 16 * 1024 * 1024,
        });
        const count = expectedNames('read-write', `/api/mcp/x/${toolset}`).length;
        assert.match(
          stdout,
          new RegExp(`OK: the MCP Inspector CLI lists ${count} tools at ${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
          toolset,
        );
      }),
    );
  });
});
