// OAuth access tokens through the gateway to real services: MCP with the official SDK client sending the
// token as a Bearer header, as a client does once it has signed in, on the MCP URL it was granted for; the
// REST API (leads) refuses them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  selectResourceURL,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertError, client, createGrantWithToken, ok, type Platform, startPlatform } from '../support/harness.js';

describe('OAuth access tokens through the gateway', () => {
  let platform: Platform<'leads' | 'mcp'>;
  const mcpClients: McpClient[] = [];

  before(async () => {
    platform = await startPlatform({ services: ['leads', 'mcp'] });
  });
  after(async () => {
    await Promise.allSettled(mcpClients.map((mcp) => mcp.close()));
    await platform?.close();
  });

  async function connect(token: string, path = '/api/mcp', headers: Record<string, string> = {}): Promise<McpClient> {
    const mcp = new McpClient({ name: 'oauth-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}${path}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
      }),
    );
    mcpClients.push(mcp);
    return mcp;
  }

  test('the SDK discovers the protected resource metadata from the 401 and from the well-known address, and accepts its resource', async () => {
    const serverUrl = new URL(`${platform.url}/api/mcp`);
    const refused = await fetch(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' }),
    });
    assert.equal(refused.status, 401);
    const challenge = extractWWWAuthenticateParams(refused);
    assert.equal(challenge.resourceMetadataUrl?.href, `${platform.url}/.well-known/oauth-protected-resource/api/mcp`);
    assert.equal(challenge.error, undefined);
    for (const metadata of [
      await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl: challenge.resourceMetadataUrl as URL }),
      // A client that ignores the challenge looks at the path-suffixed well-known address itself.
      await discoverOAuthProtectedResourceMetadata(serverUrl),
    ]) {
      assert.equal(metadata.resource, serverUrl.href);
      assert.deepEqual(metadata.authorization_servers, [platform.url]);
      assert.deepEqual(metadata.scopes_supported, ['read', 'read-write']);
      // The SDK refuses a resource that is not the server it connected to; this one it takes.
      const resource = await selectResourceURL(serverUrl, {} as OAuthClientProvider, metadata);
      assert.equal(resource?.href, serverUrl.href);
    }
    // An MCP token on the REST API: refused, with the REST API's metadata, which names no authorization server.
    const { orgId } = await platform.org();
    const { token } = await createGrantWithToken(platform.gateway, orgId, { scope: 'read-write' });
    const write = await fetch(`${platform.url}/api/v1/leads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nope' }),
    });
    assert.equal(write.status, 401);
    const refused401 = extractWWWAuthenticateParams(write);
    assert.equal(refused401.error, 'invalid_token');
    assert.equal(refused401.resourceMetadataUrl?.href, `${platform.url}/.well-known/oauth-protected-resource/api/v1`);
    const rest = (await (await fetch(refused401.resourceMetadataUrl as URL)).json()) as {
      resource: string;
      authorization_servers?: string[];
    };
    assert.equal(rest.resource, `${platform.url}/api/v1`);
    assert.equal(rest.authorization_servers, undefined);
  });

  test("a read grant's token lists the 27 read tools over MCP and calls one; a write tool is refused", async () => {
    const { orgId } = await platform.org();
    const { token } = await createGrantWithToken(platform.gateway, orgId, { scope: 'read' });
    const mcp = await connect(token);
    const { tools } = await mcp.listTools();
    assert.equal(tools.length, 27);
    assert.ok(tools.every((tool) => tool.annotations?.readOnlyHint === true));
    const recent = (await mcp.callTool({ name: 'service_recent_leads', arguments: {} })) as CallToolResult;
    assert.notEqual(recent.isError, true, JSON.stringify(recent.content));
    const write = (await mcp.callTool({ name: 'service_create_lead', arguments: { name: 'Nope' } })) as CallToolResult;
    assert.equal(write.isError, true);
    assert.match((write.content[0] as { text: string }).text, /^forbidden_scope: /);
  });

  test("a read-write grant's token writes over MCP, in its own organization, and not over REST", async () => {
    const { orgId, key } = await platform.org();
    const { token } = await createGrantWithToken(platform.gateway, orgId, { scope: 'read-write' });
    const mcp = await connect(token);
    const created = (await mcp.callTool({ name: 'service_create_lead', arguments: { name: 'Ada Lovelace' } })) as CallToolResult;
    assert.notEqual(created.isError, true, JSON.stringify(created.content));
    const lead = created.structuredContent as { id: string };
    assert.equal(ok(await client(platform.url, key).get(`/api/v1/leads/${lead.id}`)).name, 'Ada Lovelace');
    assertError(await client(platform.url, token).post('/api/v1/leads', { name: 'Nope' }), 401, 'invalid_token');
  });

  test("a token of organization A used against organization B's ids is not_found over MCP", async () => {
    const a = await platform.org();
    const b = await platform.org();
    const leadOfB = ok(await client(platform.url, b.key).post('/api/v1/leads', { name: 'Grace Hopper' }), 201);
    const { token } = await createGrantWithToken(platform.gateway, a.orgId, { scope: 'read-write' });
    const mcp = await connect(token);
    const got = (await mcp.callTool({ name: 'service_get_lead', arguments: { lead_id: leadOfB.id } })) as CallToolResult;
    assert.equal(got.isError, true);
    assert.match((got.content[0] as { text: string }).text, /^not_found: /);
    const changed = (await mcp.callTool({
      name: 'service_update_lead',
      arguments: { lead_id: leadOfB.id, name: 'Changed' },
    })) as CallToolResult;
    assert.equal(changed.isError, true);
    assert.match((changed.content[0] as { text: string }).text, /^not_found: /);
    assert.equal(ok(await client(platform.url, b.key).get(`/api/v1/leads/${leadOfB.id}`)).name, 'Grace Hopper');
  });

  test('a token for a toolset read-only URL sees and calls exactly what that URL offers, there alone (issue 28)', async () => {
    const { orgId, key } = await platform.org();
    const resourcePath = '/api/mcp/x/leads/readonly';
    const { token } = await createGrantWithToken(platform.gateway, orgId, { scope: 'read-write', resourcePath });
    const own = await connect(token, resourcePath);
    const { tools } = await own.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['service_get_lead', 'service_list_leads', 'service_recent_leads']);
    const write = (await own.callTool({ name: 'service_create_lead', arguments: { name: 'Nope' } })) as CallToolResult;
    assert.equal(write.isError, true);
    assert.match((write.content[0] as { text: string }).text, /^forbidden_scope: /);
    // Headers narrow, never widen: asking for writing on its own URL changes nothing.
    const asking = await connect(token, resourcePath, { 'X-MCP-Readonly': 'false' });
    assert.equal((await asking.listTools()).tools.length, 3);
    // Anywhere else the token is refused before any MCP: the whole server, and the REST API.
    await assert.rejects(connect(token, '/api/mcp'), /401|invalid_token|Unauthorized/);
    const sms = await client(platform.url, token).post('/api/v1/phone/sms', { to: '+14155550100', body: 'hello' });
    assertError(sms, 401, 'invalid_token');
    const leads = ok(await client(platform.url, key).get('/api/v1/leads'));
    assert.equal(leads.data.length, 0, 'nothing was written');
  });
});
