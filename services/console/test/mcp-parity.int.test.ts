// Parity with the MCP catalogue: every tool outside the `platform` toolset has a console route that runs the
// same operation for a person (routes declare it: `config.operation`, http/actions.ts), a route that changes
// anything is for owners and admins only, every operation a route names is one the platform still has, and
// the README's toolset table names, for each toolset, console pages that exist.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  consoleRpc,
  gatewayRpc,
  isTestOnlyToolset,
  leadsRpc,
  type McpToolset,
  mcpRpc,
  oauthRpc,
  recallRpc,
  telephonyRpc,
  webhooksRpc,
} from '@voice/proto';
import { allTools } from '../../mcp/src/mcp/catalog.js';
import { consoleActions } from '../src/http/actions.js';
import { type Harness, startHarness } from './support/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

/** Every operation the platform has, by subject. */
const operations = new Map(
  [consoleRpc, gatewayRpc, leadsRpc, mcpRpc, oauthRpc, recallRpc, telephonyRpc, webhooksRpc].flatMap((rpc) =>
    Object.values(rpc).map((operation) => [operation.subject, operation] as const),
  ),
);

test('every MCP tool outside the platform toolset has a console route that runs its operation', () => {
  const actions = consoleActions(h.app);
  assert.ok(actions.length > 0, 'the console declares the operations its routes run');
  const run = new Set(actions.map((action) => action.operation.subject));
  // Test helpers drive a developer's test suite; a person's test data comes from the product's own pages.
  const missing = allTools
    .filter((tool) => tool.toolset !== 'platform' && !isTestOnlyToolset(tool.toolset))
    .filter((tool) => !tool.operation || !run.has(tool.operation.subject))
    .map((tool) => `${tool.name} (${tool.operation?.subject ?? 'no operation'})`);
  assert.deepEqual(missing, [], 'tools a person cannot use in the console');
});

test('every operation a console route names is one the platform has, and a route that changes anything is for owners and admins', () => {
  for (const action of consoleActions(h.app)) {
    const where = `${action.method} ${action.url}`;
    assert.equal(
      operations.get(action.operation.subject),
      action.operation,
      `${where} runs ${action.operation.subject}, which no longer exists`,
    );
    if (action.operation.scope !== 'read') {
      assert.equal(action.method, 'POST', `${where} changes data (${action.operation.subject}), so it is a form's POST`);
      assert.equal(action.access, 'manager', `${where} changes data (${action.operation.subject}): owners and admins only`);
    }
  }
});

test("the README's toolset table names each toolset's console pages, and they exist", () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const after = readme.slice(readme.indexOf('<!-- generated: toolsets -->')).split('\n').slice(1);
  const table = after.slice(
    0,
    after.findIndex((line) => !line.startsWith('|')),
  );
  const rows = table.filter((line) => /^\| `\w+` \|/.test(line) && !isTestOnlyToolset(/^\| `(\w+)` \|/.exec(line)?.[1] as McpToolset));
  assert.ok(rows.length >= 7, 'the table lists the toolsets');
  for (const row of rows) {
    const toolset = /^\| `(\w+)` \|/.exec(row)?.[1] as string;
    const pages = [...(row.split('|').at(-2) ?? '').matchAll(/`(\/dashboard[^`]*)`/g)].map((match) => match[1] as string);
    assert.ok(pages.length > 0, `the ${toolset} row names its console pages`);
    for (const page of pages) assert.ok(h.app.hasRoute({ method: 'GET', url: page }), `${page} (${toolset}) is a console page`);
  }
});
