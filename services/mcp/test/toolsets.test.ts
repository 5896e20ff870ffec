// Toolsets and read-only mode without a network: the selection parser every component shares, the
// catalogue's partition of the tools into toolsets, and the READMEs' tables against the catalogue.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { isMcpPath, type McpToolset, mcpSelection, mcpToolsets, parseMcpPath, testTwinOf } from '@voice/proto';
import { allTools, ToolCatalog } from '../src/mcp/catalog.js';

const catalog = new ToolCatalog();
/** A live organization's read-write key, and a test credential of its test twin. */
const liveKey = { scope: 'read-write', org_id: 'org_2x8FkQ9mLp3v' } as const;
const testKey = { ...liveKey, org_id: testTwinOf(liveKey.org_id) };
const names = (tools: { name: string }[]) => tools.map((tool) => tool.name).sort();

describe('the selection of toolsets and read-only mode', () => {
  test('URLs: the bare endpoint, /readonly, /x/{toolsets}, /x/{toolsets}/readonly', () => {
    assert.deepEqual(parseMcpPath('/api/mcp'), { ok: true, selection: { toolsets: mcpToolsets, readonly: false } });
    assert.deepEqual(parseMcpPath('/api/mcp/'), { ok: true, selection: { toolsets: mcpToolsets, readonly: false } });
    assert.deepEqual(parseMcpPath('/api/mcp/readonly'), { ok: true, selection: { toolsets: mcpToolsets, readonly: true } });
    assert.deepEqual(parseMcpPath('/api/mcp/x/leads,calls'), { ok: true, selection: { toolsets: ['leads', 'calls'], readonly: false } });
    assert.deepEqual(parseMcpPath('/api/mcp/x/billing%2Cplatform/readonly'), {
      ok: true,
      selection: { toolsets: ['billing', 'platform'], readonly: true },
    });
    assert.deepEqual(parseMcpPath('/api/mcp/x/leads,leads'), { ok: true, selection: { toolsets: ['leads'], readonly: false } });
  });

  test('an unknown or empty toolset is an error naming the known ones; other paths are not the endpoint', () => {
    const known = 'The toolsets are: leads, calls, sequences, billing, workspace, knowledge, platform, testing.';
    assert.deepEqual(parseMcpPath('/api/mcp/x/leads,nope'), { ok: false, message: `Unknown toolset "nope". ${known}`, param: 'toolsets' });
    assert.deepEqual(parseMcpPath('/api/mcp/x/'), { ok: false, message: `Unknown toolset "". ${known}`, param: 'toolsets' });
    assert.deepEqual(parseMcpPath('/api/mcp/x/%E0'), {
      ok: false,
      message: `The toolset list is not valid URL encoding. ${known}`,
      param: 'toolsets',
    });
    for (const path of ['/api/mcpx', '/api/mcp/readonly/x/leads', '/api/mcp/x/leads/more', '/api/mcp/x', '/api/v1/leads']) {
      assert.equal(parseMcpPath(path), undefined, path);
      assert.equal(isMcpPath(path), false, path);
    }
    assert.equal(isMcpPath('/api/mcp/x/nope'), false);
    assert.equal(isMcpPath('/api/mcp/x/knowledge/readonly'), true);
  });

  test('headers select too; read-only from either side wins; toolsets in both are refused', () => {
    assert.deepEqual(mcpSelection('/api/mcp', { toolsets: ' leads , calls', readonly: 'TRUE' }), {
      ok: true,
      selection: { toolsets: ['leads', 'calls'], readonly: true },
    });
    assert.deepEqual(mcpSelection('/api/mcp/x/leads/readonly', { readonly: 'false' }), {
      ok: true,
      selection: { toolsets: ['leads'], readonly: true },
    });
    assert.deepEqual(mcpSelection('/api/mcp/readonly', { toolsets: 'billing' }), {
      ok: true,
      selection: { toolsets: ['billing'], readonly: true },
    });
    assert.deepEqual(mcpSelection('/api/mcp/x/leads', { toolsets: 'calls' }), {
      ok: false,
      message: 'Name the toolsets in the URL or in X-MCP-Toolsets, not both.',
      param: 'x-mcp-toolsets',
    });
    assert.deepEqual(mcpSelection('/api/mcp', { readonly: 'yes' }), {
      ok: false,
      message: 'X-MCP-Readonly must be true or false.',
      param: 'x-mcp-readonly',
    });
    assert.match(
      (mcpSelection('/api/mcp', { toolsets: 'sms' }) as { message: string }).message,
      /^Unknown toolset "sms"\. The toolsets are: leads/,
    );
  });
});

describe('the test-only toolset in a selection', () => {
  test('a live credential that names testing (URL or header, alone or with others) is refused, saying what to use', () => {
    const message =
      'The testing toolset is for test credentials only (a vk_test_ key, or a grant made in test mode); this credential is live. ' +
      'Call it with a test credential, or leave it out of the selection.';
    assert.deepEqual(mcpSelection('/api/mcp/x/testing', {}, liveKey), { ok: false, message, param: 'toolsets' });
    assert.deepEqual(mcpSelection('/api/mcp/x/leads,testing/readonly', {}, liveKey), { ok: false, message, param: 'toolsets' });
    assert.deepEqual(mcpSelection('/api/mcp', { toolsets: 'calls,testing' }, liveKey), { ok: false, message, param: 'x-mcp-toolsets' });
  });

  test('a test credential selects it; the default selection is every toolset in both modes (the catalogue offers by mode)', () => {
    assert.deepEqual(mcpSelection('/api/mcp/x/testing', {}, testKey), { ok: true, selection: { toolsets: ['testing'], readonly: false } });
    assert.deepEqual(mcpSelection('/api/mcp', { toolsets: 'calls,testing' }, testKey), {
      ok: true,
      selection: { toolsets: ['calls', 'testing'], readonly: false },
    });
    for (const credential of [liveKey, testKey]) {
      assert.deepEqual(mcpSelection('/api/mcp', {}, credential), { ok: true, selection: { toolsets: mcpToolsets, readonly: false } });
    }
    // The URL alone (the gateway's and the console's reading) knows no mode: it is a valid MCP URL.
    assert.equal(isMcpPath('/api/mcp/x/testing'), true);
  });
});

describe('the catalogue in toolsets', () => {
  test('every tool is in exactly one toolset, and every toolset has tools (for a test credential; a live one has no testing tools)', () => {
    const lists = mcpToolsets.map((toolset) => names(catalog.list(testKey, { toolsets: [toolset], readonly: false })));
    for (const [index, list] of lists.entries()) assert.ok(list.length > 0, `${mcpToolsets[index]} is empty`);
    assert.deepEqual(lists.flat().sort(), names([...allTools]), 'the toolsets partition the 50 tools');
    assert.equal(lists.flat().length, 50);
    assert.deepEqual(catalog.list(liveKey, { toolsets: ['testing'], readonly: false }), []);
    assert.deepEqual(names(catalog.list(testKey, { toolsets: ['testing'], readonly: false })), [
      'test_advance_call',
      'test_simulate_inbound_call',
      'test_simulate_inbound_sms',
      'test_trigger_webhook_event',
    ]);
    assert.equal(catalog.list(liveKey).length, 46, "a live credential's default list");
  });

  test('the toolsets hold the areas the issue names', () => {
    const of = (toolset: McpToolset) => names(catalog.list({ scope: 'read-write' }, { toolsets: [toolset], readonly: false }));
    assert.ok(of('calls').includes('service_send_sms') && of('calls').includes('service_remove_dnc'));
    assert.ok(of('billing').includes('service_send_invoice') && of('billing').includes('service_deliver_project'));
    assert.ok(of('workspace').includes('service_apply_theme') && of('workspace').includes('service_update_workspace'));
    assert.deepEqual(of('knowledge'), ['service_add_knowledge_document', 'service_brand_score', 'service_recall']);
    assert.deepEqual(of('platform'), ['service_get_approval', 'service_get_usage', 'service_list_approvals', 'service_list_audit_log']);
  });

  test('read-only mode lists only the read tools for a read-write key, and refuses a write before running it', async () => {
    const readonly = catalog.list({ scope: 'read-write' }, { toolsets: mcpToolsets, readonly: true });
    assert.deepEqual(names(readonly), names(catalog.list({ scope: 'read' })));
    assert.ok(readonly.every((tool) => tool.annotations?.readOnlyHint === true));
    let ran = false;
    const context = {
      identity: { scope: 'read-write', request_id: 'req_test' },
      deps: { logger: { error: () => {} } },
      call: async () => {
        ran = true;
        return {};
      },
    } as unknown as Parameters<ToolCatalog['call']>[2];
    const refused = await catalog.call('service_create_lead', { name: 'Nope' }, context, { toolsets: mcpToolsets, readonly: true });
    assert.equal(refused.isError, true);
    assert.match(
      (refused.content[0] as { text: string }).text,
      /^forbidden_scope: service_create_lead changes data and this connection is read-only/,
    );
    assert.equal(ran, false, 'nothing was run');
  });
});

/** The rows of a README's toolset table (after `<!-- generated: toolsets -->`): name → [tools, read tools]. */
function readmeTable(path: string): Map<string, [number, number]> {
  const text = readFileSync(new URL(path, import.meta.url), 'utf8');
  const start = text.indexOf('<!-- generated: toolsets -->');
  assert.ok(start >= 0, `${path} has a toolsets table`);
  const rows = new Map<string, [number, number]>();
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('|')) break;
    const match = /^\| (?:`(\w+)`|(all) \(default\)) \| (\d+) \| (\d+) \|/.exec(line);
    if (match) rows.set(match[1] ?? match[2] ?? '', [Number(match[3]), Number(match[4])]);
  }
  return rows;
}

describe("the READMEs' toolset tables", () => {
  const write = catalog.toolsetSizes('read-write');
  const read = catalog.toolsetSizes('read');
  const expected = new Map<string, [number, number]>([
    ...mcpToolsets.map((toolset): [string, [number, number]] => [toolset, [write[toolset], read[toolset]]]),
    // "all (default)" counts every tool, as a test credential's default selection lists them (a live one's lacks testing).
    ['all', [catalog.list(testKey).length, catalog.list({ ...testKey, scope: 'read' }).length]],
  ]);
  for (const path of ['../../../README.md', '../README.md']) {
    test(`${path}: each toolset's tool counts are the catalogue's`, () => {
      assert.deepEqual(readmeTable(path), expected);
    });
  }
});
