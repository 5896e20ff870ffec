import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ApiError } from '@voice/kit';
import { testIdentity } from '@voice/kit/testing';
import { approvalTools, mcpToolsets, testTwinOf } from '@voice/proto';
import { ToolCatalog } from '../src/mcp/catalog.js';
import { inToolTerms, toolError } from '../src/mcp/tool-errors.js';

/** MCP-TOOLS.md, row by row: name, scope (R/W), approval. The names are the contract; they must not drift. */
const specification: Array<[string, 'R' | 'W', boolean]> = [
  ['service_recent_leads', 'R', false],
  ['service_list_leads', 'R', false],
  ['service_get_lead', 'R', false],
  ['service_create_lead', 'W', false],
  ['service_update_lead', 'W', false],
  ['service_add_lead_note', 'W', false],
  ['service_delete_lead', 'W', true],
  ['service_list_calls', 'R', false],
  ['service_get_call', 'R', false],
  ['service_queue_call', 'W', false],
  ['service_cancel_call', 'W', false],
  ['service_call_stats', 'R', false],
  ['service_list_sms', 'R', false],
  ['service_get_sms', 'R', false],
  ['service_send_sms', 'W', false],
  ['service_list_dnc', 'R', false],
  ['service_check_dnc', 'R', false],
  ['service_add_dnc', 'W', false],
  ['service_remove_dnc', 'W', true],
  ['service_list_sequences', 'R', false],
  ['service_get_sequence', 'R', false],
  ['service_enroll_sequence', 'W', false],
  ['service_unenroll_sequence', 'W', false],
  ['service_list_enrollments', 'R', false],
  ['service_list_invoices', 'R', false],
  ['service_get_invoice', 'R', false],
  ['service_draft_invoice', 'W', false],
  ['service_update_invoice', 'W', false],
  ['service_send_invoice', 'W', true],
  ['service_list_projects', 'R', false],
  ['service_get_project', 'R', false],
  ['service_update_project', 'W', false],
  ['service_deliver_project', 'W', true],
  ['service_list_themes', 'R', false],
  ['service_get_theme', 'R', false],
  ['service_apply_theme', 'W', false],
  ['service_list_workspaces', 'R', false],
  ['service_get_workspace', 'R', false],
  ['service_update_workspace', 'W', false],
  ['service_recall', 'R', false],
  ['service_brand_score', 'R', false],
  ['service_add_knowledge_document', 'W', false],
  ['service_list_approvals', 'R', false],
  ['service_get_approval', 'R', false],
  ['service_get_usage', 'R', false],
  ['service_list_audit_log', 'R', false],
];

/** Test mode's helpers (the `testing` toolset), offered to test credentials only: one per test helper operation. */
const testModeSpecification: Array<[string, 'R' | 'W', boolean]> = [
  ['test_advance_call', 'W', false],
  ['test_simulate_inbound_call', 'W', false],
  ['test_simulate_inbound_sms', 'W', false],
  ['test_trigger_webhook_event', 'W', false],
];

/**
 * Checks every `"<record>: see <tool>"` of the listings' output schemas: the tool is a reading tool of the
 * same listings, and its output schema spells that record out. Returns how many there are.
 */
function recordReferences(tools: ReturnType<ToolCatalog['listings']>): number {
  const named = new Map(tools.map((tool) => [tool.name, tool]));
  let references = 0;
  for (const tool of tools) {
    for (const [, record, home] of JSON.stringify(tool.outputSchema).matchAll(/"description":"(\w+): see (service_\w+)"/g)) {
      references += 1;
      const reader = named.get(home as string);
      assert.equal(reader?.annotations?.readOnlyHint, true, `${tool.name}: ${home} is a reading tool of the same list`);
      assert.notEqual(home, tool.name);
      // Spelt out: more fields follow `object` (a reference to a record ends with it).
      const spelt = JSON.stringify(reader?.outputSchema);
      assert.ok(spelt.includes(`"object":{"const":"${record}"},`), `${tool.name}: ${home} spells out ${record}`);
    }
  }
  return references;
}

const catalog = new ToolCatalog();
const listings = catalog.listings();
const byName = new Map(listings.map((tool) => [tool.name, tool]));
/** One file per tool, so a change to one tool's contract shows as a change to one file in review. */
const snapshotDir = fileURLToPath(new URL('./__snapshots__/tools/', import.meta.url));

describe('the tool catalogue', () => {
  test("has exactly the 46 tools of MCP-TOOLS.md and test mode's 4 helpers, by name", () => {
    assert.equal(specification.length, 46);
    assert.deepEqual(listings.map((tool) => tool.name).sort(), [...specification, ...testModeSpecification].map(([name]) => name).sort());
  });

  test("a test credential (the organization's test twin) lists test mode's helpers too; a live one never does", () => {
    const live = testIdentity({ scope: 'read-write' });
    const testCredential = { ...live, org_id: testTwinOf(live.org_id) };
    const testNames = catalog.list(testCredential).map((tool) => tool.name);
    assert.deepEqual(testNames.sort(), [...specification, ...testModeSpecification].map(([name]) => name).sort());
    assert.ok(!catalog.list(live).some((tool) => tool.name.startsWith('test_')));
    // A caller that names no organization counts as live.
    assert.ok(!catalog.list({ scope: 'read-write' }).some((tool) => tool.name.startsWith('test_')));
    // The helpers change (test) data: a read key, or read-only mode, never sees them.
    assert.ok(!catalog.list({ ...testCredential, scope: 'read' }).some((tool) => tool.name.startsWith('test_')));
    for (const [name] of testModeSpecification) {
      assert.match(byName.get(name)?.description ?? '', /^Test mode only \(test credentials; live ones never see this tool\)\. /, name);
      assert.match(byName.get(name)?.title ?? '', /^Test mode: /, name);
    }
  });

  test('a read key lists only the read tools; a read-write key lists them all', () => {
    const readNames = catalog.list(testIdentity({ scope: 'read' })).map((tool) => tool.name);
    assert.deepEqual(
      readNames.sort(),
      specification
        .filter(([, scope]) => scope === 'R')
        .map(([name]) => name)
        .sort(),
    );
    assert.equal(catalog.list(testIdentity({ scope: 'read-write' })).length, specification.length);
  });

  test('every tool sets all four annotations, by its effect', () => {
    for (const [name, scope, approval] of [...specification, ...testModeSpecification]) {
      const annotations = byName.get(name)?.annotations;
      assert.ok(annotations, name);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        assert.equal(typeof annotations[hint], 'boolean', `${name}.${hint}`);
      }
      assert.equal(annotations.readOnlyHint, scope === 'R', `${name} readOnlyHint`);
      if (approval) assert.equal(annotations.destructiveHint, true, `${name} destructiveHint`);
      if (scope === 'R') assert.equal(annotations.destructiveHint, false, `${name} destructiveHint`);
    }
    assert.deepEqual(
      specification.filter(([, , approval]) => approval).map(([name]) => name),
      [...approvalTools],
    );
  });

  test('every tool has a description, an object input schema that refuses unknown arguments, and an object output schema', () => {
    for (const tool of listings) {
      assert.ok((tool.description ?? '').length > 20, tool.name);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.ok(!JSON.stringify(tool).includes('"$ref"'), `${tool.name} schemas are self-contained`);
    }
  });

  test('tools/list for a read-write key, all 46 tools, stays under 60,000 characters (a size budget: it goes into agents’ context)', () => {
    const tools = catalog.list(testIdentity({ scope: 'read-write' }));
    assert.equal(tools.length, 46);
    // What the server answers to tools/list, serialized as it goes on the wire.
    const size = JSON.stringify({ tools }).length;
    assert.ok(size < 60_000, `tools/list is ${size} characters`);
  });

  test('a record left out of an output schema names a reading tool of the same list that spells it out', () => {
    assert.ok(recordReferences(listings) > 10);
    // A selection of toolsets (read-only or not) names only tools it lists.
    const selections = [...mcpToolsets.map((toolset) => [toolset]), ['leads', 'calls'] as const, mcpToolsets];
    for (const toolsets of selections) {
      for (const readonly of [false, true]) recordReferences(catalog.list({ scope: 'read-write' }, { toolsets, readonly }));
    }
  });

  test('every list tool takes limit (1..100) and cursor and returns next_cursor', () => {
    const lists = listings.filter((tool) => tool.name.startsWith('service_list_') || tool.name === 'service_recent_leads');
    assert.equal(lists.length, 13);
    for (const tool of lists) {
      const properties = tool.inputSchema.properties as Record<string, { minimum?: number; maximum?: number }>;
      assert.equal(properties.limit?.minimum, 1, tool.name);
      assert.equal(properties.limit?.maximum, 100, tool.name);
      assert.ok(properties.cursor, tool.name);
      assert.ok(tool.outputSchema?.properties?.next_cursor, tool.name);
    }
  });

  test('the schemas match the snapshots in test/__snapshots__/tools/, one file per tool (UPDATE_SNAPSHOTS=1 rewrites them)', () => {
    const current = new Map(
      listings.map((tool) => [
        `${tool.name}.json`,
        `${JSON.stringify(
          {
            name: tool.name,
            description: tool.description,
            annotations: tool.annotations,
            inputSchema: tool.inputSchema,
            outputSchema: tool.outputSchema,
          },
          null,
          2,
        )}\n`,
      ]),
    );
    if (process.env.UPDATE_SNAPSHOTS === '1') {
      rmSync(snapshotDir, { recursive: true, force: true });
      mkdirSync(snapshotDir, { recursive: true });
      for (const [file, text] of current) writeFileSync(`${snapshotDir}${file}`, text);
    }
    const stored = new Map(readdirSync(snapshotDir).map((file) => [file, readFileSync(`${snapshotDir}${file}`, 'utf8')]));
    const differing = [...new Set([...current.keys(), ...stored.keys()])].filter((file) => current.get(file) !== stored.get(file)).sort();
    assert.deepEqual(
      differing,
      [],
      `tool schemas changed (${differing.join(', ')}): review the diff, then run UPDATE_SNAPSHOTS=1 npm test -- services/mcp/test/tools.test.ts`,
    );
  });
});

describe('tool errors', () => {
  test('say the code, what happened and what to do next', () => {
    const scope = toolError(new ApiError('forbidden_scope', 'service_send_sms changes data and this key is read-only'), 'req_1');
    assert.equal(scope.isError, true);
    assert.match(scope.content[0]?.text ?? '', /^forbidden_scope: .*this tool needs a read-write key; ask the operator for one\.$/);
    const missing = toolError(new ApiError('not_found', 'No such lead.', { param: 'id' }), 'req_1');
    assert.match(missing.content[0]?.text ?? '', /^not_found: No such lead \(argument id\); check the id/);
  });

  test("name the tool's argument, not the operation's field it was renamed to", () => {
    const args = { lead_id: 'lead_12345678', note: 'x' };
    const input = { id: 'lead_12345678', note: 'x' };
    const renamed = inToolTerms(new ApiError('not_found', 'No such lead.', { param: 'id' }), args, input);
    assert.match(toolError(renamed, 'req_1').content[0]?.text ?? '', /^not_found: No such lead \(argument lead_id\); check the id/);
    const validation = inToolTerms(new ApiError('invalid_request', 'id: too short', { param: 'id' }), args, input) as ApiError;
    assert.equal(validation.message, 'lead_id: too short');
    assert.equal(validation.param, 'lead_id');
    // Arguments of the same name, and fields no single argument holds, stay as they are.
    const same = new ApiError('invalid_request', 'note: too long', { param: 'note' });
    assert.equal(inToolTerms(same, args, input), same);
    const ambiguous = new ApiError('not_found', 'No such lead.', { param: 'id' });
    assert.equal(inToolTerms(ambiguous, { a_id: 'lead_1', b_id: 'lead_1' }, { id: 'lead_1' }), ambiguous);
  });

  test('hide unexpected errors behind internal, with the request id to report', () => {
    const result = toolError(new Error('connection reset by db at 10.0.0.3'), 'req_abc');
    assert.match(result.content[0]?.text ?? '', /^internal: .*Request id: req_abc\.$/);
    assert.doesNotMatch(result.content[0]?.text ?? '', /10\.0\.0\.3/);
  });
});
