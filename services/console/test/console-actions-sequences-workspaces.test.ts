// Every tool of MCP's `sequences` and `workspace` toolsets has a console action that runs the same operation,
// on a route the console registers; and every console action declared there names an operation a tool runs.
// No services: the routes are registered on a bare fastify instance (registering calls no service).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { sequenceTools } from '../../mcp/src/tools/sequences.js';
import { workspaceTools } from '../../mcp/src/tools/workspaces.js';
import type { ConsoleAction } from '../src/domain/console-actions.js';
import type { ConsoleContext } from '../src/domain/context.js';
import { sequenceConsoleActions } from '../src/domain/sequences.js';
import { workspaceConsoleActions } from '../src/domain/workspaces.js';
import { sequenceRoutes } from '../src/routes/sequences.js';
import { workspaceRoutes } from '../src/routes/workspaces.js';

const toolsets = [
  { name: 'sequences', tools: sequenceTools, actions: sequenceConsoleActions },
  { name: 'workspace', tools: workspaceTools, actions: workspaceConsoleActions },
];

test('each tool of the sequences and workspace toolsets has a console action running its operation, on a registered route', async () => {
  const app = Fastify();
  // Registering routes reads nothing of the context; handlers, which would, never run here.
  const ctx = {} as ConsoleContext & Parameters<typeof sequenceRoutes>[1] & Parameters<typeof workspaceRoutes>[1];
  sequenceRoutes(app, ctx);
  workspaceRoutes(app, ctx);
  await app.ready();
  for (const { name, tools, actions } of toolsets) {
    assert.ok(tools.length > 0, `the ${name} toolset has tools`);
    const byOperation = new Map<unknown, ConsoleAction>(actions.map((action) => [action.operation, action]));
    for (const tool of tools) {
      assert.equal(tool.toolset, name);
      const action = byOperation.get(tool.operation);
      assert.ok(action, `${tool.name} (${tool.operation?.subject}) has a console action`);
      assert.ok(
        app.hasRoute({ method: action.method, url: action.route }),
        `${tool.name}: ${action.method} /dashboard${action.route} is a console route`,
      );
    }
    const operations = new Set(tools.map((tool) => tool.operation));
    for (const action of actions) {
      assert.ok(
        operations.has(action.operation),
        `the console action ${action.method} ${action.route} runs ${action.operation.subject}, which a ${name} tool runs`,
      );
    }
  }
  await app.close();
});
