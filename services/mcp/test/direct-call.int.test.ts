// A plain tools/call (either era) is answered without the SDK's per-request server (src/mcp/direct-call.ts). Two
// replicas on the same database and NATS, one with that path and one without (MCP_DIRECT_TOOL_CALLS=false),
// are sent the same requests: the answers must be the same, and the path must take exactly the requests the
// SDK would hand to the tools/call handler as they are.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type HttpApp, parseEnv } from '@voice/kit';
import { gatewayHeaders } from '@voice/kit/testing';
import { type Identity, mcpToolsets } from '@voice/proto';
import { buildApp } from '../src/app.js';
import { connectDeps, type McpDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { ToolCatalog } from '../src/mcp/catalog.js';
import { plainToolCall } from '../src/mcp/direct-call.js';
import { type McpHarness, startMcpHarness } from './support/harness.js';

const accept = 'application/json, text/event-stream';
const call = (params: unknown, id: unknown = 7) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'direct-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** A 2026-07-28 tools/call: the envelope in `_meta`, and the standard headers naming revision, method and tool. */
const modernCall = (params: Record<string, unknown>, id: unknown = 9) => call({ ...params, _meta: envelope }, id);
const modernHeaders = (name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });

describe('tools/call without the SDK server', () => {
  let h: McpHarness;
  let sdkOnly: { app: HttpApp; deps: McpDeps };
  let writer: Identity;
  let reader: Identity;
  let leadId: string;

  before(async () => {
    h = await startMcpHarness();
    assert.equal(h.deps.env.MCP_DIRECT_TOOL_CALLS, true, 'the direct path is on by default');
    const deps = await connectDeps(parseEnv(envSchema, { ...h.ctx.env, MCP_DIRECT_TOOL_CALLS: 'false' }), undefined, { now: h.deps.now });
    sdkOnly = { deps, app: await buildApp(deps) };
    await sdkOnly.app.ready();
    writer = await h.identity({ scope: 'read-write' });
    reader = { ...writer, scope: 'read' };
    const created = await h.tool(writer, 'service_create_lead', { name: 'Ada Direct', phone: '+14155550199' });
    leadId = (created.structuredContent as { id: string }).id;
  });
  after(async () => {
    await sdkOnly?.app.close();
    await sdkOnly?.deps.close();
    await h?.close();
  });

  /** The same request to both replicas: status, content type and body, parsed. */
  async function both(identity: Identity, body: unknown, headers: Record<string, string> = {}) {
    const send = async (app: HttpApp) => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...gatewayHeaders(identity, 'POST', '/api/mcp'), accept, 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      });
      return { status: response.statusCode, type: response.headers['content-type'], body: response.body === '' ? null : response.json() };
    };
    const [direct, sdk] = await Promise.all([send(h.app), send(sdkOnly.app)]);
    return { direct, sdk };
  }

  const cases: Array<{ name: string; identity: () => Identity; body: () => unknown; headers?: Record<string, string> }> = [
    { name: 'a page of leads', identity: () => reader, body: () => call({ name: 'service_list_leads', arguments: { limit: 5 } }) },
    {
      name: 'one lead, a string id',
      identity: () => reader,
      body: () => call({ name: 'service_get_lead', arguments: { id: leadId } }, 'req-1'),
    },
    {
      name: 'an unknown lead (a tool error)',
      identity: () => reader,
      body: () => call({ name: 'service_get_lead', arguments: { id: 'lead_0000000000000000000000' } }),
    },
    {
      name: 'wrong arguments (a tool error)',
      identity: () => reader,
      body: () => call({ name: 'service_list_leads', arguments: { limit: 'many' } }),
    },
    { name: 'no arguments', identity: () => reader, body: () => call({ name: 'service_list_leads' }) },
    {
      name: 'a write tool with a read key (a tool error)',
      identity: () => reader,
      body: () => call({ name: 'service_add_lead_note', arguments: { lead_id: leadId, body: 'x' } }),
    },
    {
      name: 'an unknown tool (the SDK answers)',
      identity: () => reader,
      body: () => call({ name: 'service_no_such_tool', arguments: {} }),
    },
    {
      name: 'arguments not an object (the SDK answers)',
      identity: () => reader,
      body: () => call({ name: 'service_list_leads', arguments: 5 }),
    },
    {
      name: 'a fractional id (the SDK answers)',
      identity: () => reader,
      body: () => call({ name: 'service_list_leads', arguments: {} }, 1.5),
    },
    {
      name: 'an unsupported protocol version (the SDK answers)',
      identity: () => reader,
      body: () => call({ name: 'service_list_leads', arguments: {} }),
      headers: { 'mcp-protocol-version': '1999-01-01' },
    },
    {
      name: 'no text/event-stream in Accept (the SDK answers)',
      identity: () => reader,
      body: () => call({ name: 'service_list_leads', arguments: {} }),
      headers: { accept: 'application/json' },
    },
    // 2026-07-28
    {
      name: '2026: a page of leads',
      identity: () => reader,
      body: () => modernCall({ name: 'service_list_leads', arguments: { limit: 5 } }),
      headers: modernHeaders('service_list_leads'),
    },
    {
      name: '2026: one lead, a string id',
      identity: () => reader,
      body: () => modernCall({ name: 'service_get_lead', arguments: { id: leadId } }, 'req-2'),
      headers: modernHeaders('service_get_lead'),
    },
    {
      name: '2026: an unknown lead (a tool error)',
      identity: () => reader,
      body: () => modernCall({ name: 'service_get_lead', arguments: { id: 'lead_0000000000000000000000' } }),
      headers: modernHeaders('service_get_lead'),
    },
    {
      name: '2026: wrong arguments (a tool error)',
      identity: () => reader,
      body: () => modernCall({ name: 'service_list_leads', arguments: { limit: 'many' } }),
      headers: modernHeaders('service_list_leads'),
    },
    {
      name: '2026: a write tool with a read key (a tool error)',
      identity: () => reader,
      body: () => modernCall({ name: 'service_add_lead_note', arguments: { lead_id: leadId, body: 'x' } }),
      headers: modernHeaders('service_add_lead_note'),
    },
    {
      name: '2026: Mcp-Name naming another tool (the SDK answers)',
      identity: () => reader,
      body: () => modernCall({ name: 'service_list_leads', arguments: {} }),
      headers: modernHeaders('service_get_lead'),
    },
    {
      name: '2026: no Mcp-Name (the SDK answers)',
      identity: () => reader,
      body: () => modernCall({ name: 'service_list_leads', arguments: {} }),
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' },
    },
    {
      name: '2026: an envelope without clientInfo (the SDK answers)',
      identity: () => reader,
      body: () =>
        call({ name: 'service_list_leads', arguments: {}, _meta: { ...envelope, 'io.modelcontextprotocol/clientInfo': undefined } }),
      headers: modernHeaders('service_list_leads'),
    },
    {
      name: '2026: an unknown tool (the SDK answers)',
      identity: () => reader,
      body: () => modernCall({ name: 'service_no_such_tool', arguments: {} }),
      headers: modernHeaders('service_no_such_tool'),
    },
  ];

  for (const { name, identity, body, headers } of cases) {
    test(`the same answer with and without the direct path: ${name}`, async () => {
      const { direct, sdk } = await both(identity(), body(), headers);
      assert.equal(direct.status, sdk.status, `status: ${JSON.stringify(direct.body)} against ${JSON.stringify(sdk.body)}`);
      assert.equal(direct.type, sdk.type, 'content type');
      assert.deepEqual(direct.body, sdk.body);
    });
  }

  test('a page of leads is the same page on both paths, and it holds the lead', async () => {
    const { direct } = await both(reader, call({ name: 'service_list_leads', arguments: { limit: 5 } }));
    const page = direct.body.result.structuredContent as { data: Array<{ id: string }> };
    assert.ok(
      page.data.some((lead) => lead.id === leadId),
      'the created lead is listed',
    );
    assert.deepEqual(
      JSON.parse(direct.body.result.content[0].text),
      direct.body.result.structuredContent,
      'the text is the structured content',
    );
  });

  test('the path takes exactly the plain calls the SDK would pass on unchanged', () => {
    const catalog = new ToolCatalog();
    const headers: IncomingHttpHeaders = { accept, 'content-type': 'application/json' };
    const plain = (body: unknown, overrides: IncomingHttpHeaders = {}, identity: Identity = reader) =>
      plainToolCall({ ...headers, ...overrides }, body, catalog, identity, { toolsets: mcpToolsets, readonly: false });
    const list = call({ name: 'service_list_leads', arguments: { limit: 1 } });
    assert.deepEqual(plain(list), { era: '2025-11-25', id: 7, params: { name: 'service_list_leads', arguments: { limit: 1 } } });
    assert.ok(plain(list, { 'content-type': 'application/json; charset=utf-8' }), 'a charset is still JSON');
    assert.ok(plain(list, { 'mcp-protocol-version': '2025-11-25' }), 'a supported version');
    const declined: Array<[string, unknown, IncomingHttpHeaders?, Identity?]> = [
      ['another method', { ...list, method: 'tools/list' }],
      ['a batch', [list]],
      ['a notification (no id)', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'service_list_leads' } }],
      ['a task', call({ name: 'service_list_leads', arguments: {}, task: { ttl: 1000 } })],
      ['a progress token', call({ name: 'service_list_leads', arguments: {}, _meta: { progressToken: 1 } })],
      ['an unknown tool', call({ name: 'service_nothing', arguments: {} })],
      ['a test helper for a live key', call({ name: 'test_advance_call', arguments: {} })],
      ['no event stream in Accept', list, { accept: 'application/json' }],
      ['another media type', list, { 'content-type': 'text/plain' }],
      ['an unknown protocol version', list, { 'mcp-protocol-version': '2024-01-01' }],
      ['wrong JSON-RPC version', { ...list, jsonrpc: '1.0' }],
    ];
    const modern = modernCall({ name: 'service_list_leads', arguments: { limit: 1 } });
    const standard = modernHeaders('service_list_leads');
    assert.deepEqual(plain(modern, standard), {
      era: '2026-07-28',
      id: 9,
      params: { name: 'service_list_leads', arguments: { limit: 1 } },
    });
    const withParams = (extra: Record<string, unknown>) => modernCall({ name: 'service_list_leads', arguments: {}, ...extra });
    declined.push(
      ['2026: no protocol-version header', modern, { ...standard, 'mcp-protocol-version': undefined }],
      ['2026: another revision in the header', modern, { ...standard, 'mcp-protocol-version': '2026-12-01' }],
      ['2026: Mcp-Method naming another method', modern, { ...standard, 'mcp-method': 'tools/list' }],
      ['2026: Mcp-Name with spaces around it', modern, { ...standard, 'mcp-name': ' service_list_leads ' }],
      [
        '2026: a progress token beside the envelope',
        call({ name: 'service_list_leads', _meta: { ...envelope, progressToken: 1 } }),
        standard,
      ],
      ['2026: request state', withParams({ requestState: 'abc' }), standard],
      ['2026: input responses', withParams({ inputResponses: {} }), standard],
      [
        '2026: an approval tool',
        modernCall({ name: 'service_delete_lead', arguments: { lead_id: 'lead_1' } }),
        modernHeaders('service_delete_lead'),
        { ...reader, scope: 'read-write' },
      ],
      ['2026: no event stream in Accept', modern, { ...standard, accept: 'application/json' }],
    );
    for (const [why, body, overrides, identity] of declined) assert.equal(plain(body, overrides, identity), undefined, why);
  });
});
