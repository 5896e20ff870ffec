import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { leadsRpc, telephonyRpc, webhooksRpc } from '@voice/proto';
import { ToolCatalog } from '../src/mcp/catalog.js';
import { defineTool, type ToolDefinition } from '../src/mcp/tool.js';

/** A correct tool over addDnc, to be spoilt one field at a time. */
const addDncTool = defineTool({
  name: 'service_add_dnc_test',
  toolset: 'calls',
  title: 'Add',
  description: 'Adds.',
  operation: telephonyRpc.addDnc,
});

describe('the catalogue refuses at start a tool that disagrees with its operation', () => {
  test('a tool built from its operation agrees: scope and readOnlyHint come from it', () => {
    assert.equal(addDncTool.scope, 'read-write');
    assert.equal(addDncTool.annotations.readOnlyHint, false);
    assert.equal(new ToolCatalog([addDncTool]).size, 1);
  });

  test('a tool that declares another scope than its operation', () => {
    const readingWriter: ToolDefinition = { ...addDncTool, scope: 'read', annotations: { ...addDncTool.annotations, readOnlyHint: true } };
    assert.throws(
      () => new ToolCatalog([readingWriter]),
      /tool service_add_dnc_test: scope read differs from operation svc\.telephony\.dnc\.add's scope read-write/,
    );
  });

  test('a readOnlyHint that is not its scope', () => {
    const misHinted: ToolDefinition = { ...addDncTool, annotations: { ...addDncTool.annotations, readOnlyHint: true } };
    assert.throws(() => new ToolCatalog([misHinted]), /tool service_add_dnc_test: readOnlyHint true does not match its scope read-write/);
  });

  test('a plain tool that would run an operation needing approval directly', () => {
    const direct = defineTool({
      name: 'service_delete_lead_now',
      toolset: 'leads',
      title: 'Delete',
      description: 'Deletes.',
      operation: leadsRpc.deleteLead,
    });
    assert.throws(
      () => new ToolCatalog([direct]),
      /tool service_delete_lead_now: approval false differs from operation svc\.leads\.leads\.delete's approval true/,
    );
  });

  test('an approval tool with nothing to run once approved', () => {
    const { operation: _operation, ...orphan } = { ...addDncTool, approval: true };
    assert.throws(() => new ToolCatalog([orphan]), /asks for approval but names no operation/);
  });
});

describe('every tool belongs to exactly one known toolset', () => {
  test('a tool naming a toolset that does not exist stops the catalogue', () => {
    const stray = { ...addDncTool, toolset: 'telephony' } as unknown as ToolDefinition;
    assert.throws(() => new ToolCatalog([stray]), /tool service_add_dnc_test: unknown toolset telephony/);
  });
});

describe('test helpers (testOnly operations) and the test-only toolset agree', () => {
  const helper = defineTool({
    name: 'test_trigger_webhook_event_test',
    toolset: 'testing',
    title: 'Trigger',
    description: 'Triggers.',
    operation: webhooksRpc.triggerEvent,
  });

  test('a tool of the testing toolset that runs a test helper is accepted', () => {
    assert.equal(webhooksRpc.triggerEvent.testOnly, true);
    assert.equal(new ToolCatalog([helper, addDncTool]).size, 2);
  });

  test('a test helper outside the testing toolset stops the catalogue', () => {
    const stray: ToolDefinition = { ...helper, toolset: 'calls' };
    assert.throws(
      () => new ToolCatalog([stray]),
      /tool test_trigger_webhook_event_test: runs test helper svc\.webhooks\.test_helpers\.trigger but is in toolset calls, not a test-only one \(testing\)/,
    );
  });

  test('a testing tool over an operation of the live API stops the catalogue', () => {
    const live: ToolDefinition = { ...addDncTool, toolset: 'testing' };
    assert.throws(
      () => new ToolCatalog([live]),
      /tool service_add_dnc_test: is in the test-only toolset testing but runs no test helper \(a testOnly operation\)/,
    );
    const { operation: _operation, ...local } = { ...addDncTool, toolset: 'testing' as const };
    assert.throws(() => new ToolCatalog([local]), /is in the test-only toolset testing but runs no test helper/);
  });
});
