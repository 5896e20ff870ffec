// OAuth access tokens through the gateway to real services: REST (leads) and MCP with the official SDK
// client sending the token as a Bearer header, as a client does once it has signed in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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

  async function connect(token: string): Promise<McpClient> {
    const mcp = new McpClient({ name: 'oauth-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    mcpClients.push(mcp);
    return mcp;
  }

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

  test("a read-write grant's token writes over REST, in its own organization", async () => {
    const { orgId } = await platform.org();
    const { token } = await createGrantWithToken(platform.gateway, orgId, { scope: 'read-write' });
    const api = client(platform.url, token);
    const lead = ok(await api.post('/api/v1/leads', { name: 'Ada Lovelace' }), 201);
    assert.equal(ok(await api.get(`/api/v1/leads/${lead.id}`)).name, 'Ada Lovelace');
  });

  test("a token of organization A used against organization B's ids is not_found, over REST and MCP", async () => {
    const a = await platform.org();
    const b = await platform.org();
    const leadOfB = ok(await client(platform.url, b.key).post('/api/v1/leads', { name: 'Grace Hopper' }), 201);
    const { token } = await createGrantWithToken(platform.gateway, a.orgId, { scope: 'read-write' });
    const api = client(platform.url, token);
    assertError(await api.get(`/api/v1/leads/${leadOfB.id}`), 404, 'not_found');
    assertError(await api.patch(`/api/v1/leads/${leadOfB.id}`, { name: 'Changed' }), 404, 'not_found');
    const mcp = await connect(token);
    const got = (await mcp.callTool({ name: 'service_get_lead', arguments: { lead_id: leadOfB.id } })) as CallToolResult;
    assert.equal(got.isError, true);
    assert.match((got.content[0] as { text: string }).text, /^not_found: /);
    assert.equal(ok(await client(platform.url, b.key).get(`/api/v1/leads/${leadOfB.id}`)).name, 'Grace Hopper');
  });
});
