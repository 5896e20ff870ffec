import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Identity, McpSelection, RpcDefinition } from '@voice/proto';
import type { z } from 'zod';
import type { McpDeps } from '../deps.js';
import type { ToolCatalog } from './catalog.js';
import type { ToolContext } from './tool.js';

export const serverInfo = { name: 'voice-platform', version: '1.0.0' };

const instructions =
  'Tools of the voice-AI, leads and recall platform, acting inside your organization only. Lists are cursor-paged: pass ' +
  'next_cursor back as cursor. Destructive tools (delete lead, remove do-not-call entry, send invoice, deliver project) ' +
  'only ask a person for approval in Telegram or Slack and return pending_approval; check the outcome with service_get_approval.';

/**
 * One MCP server for one HTTP request (stateless streamable HTTP: any replica answers any request). The
 * caller's identity is fixed here, from the gateway's signed headers, and reaches every tool handler;
 * nothing in a tool's arguments can change it.
 */
export function createMcpServer(deps: McpDeps, catalog: ToolCatalog, identity: Identity, selection: McpSelection): Server {
  const server = new Server(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions });
  const context: ToolContext = {
    identity,
    deps,
    call: <D extends RpcDefinition>(rpc: D, input: z.input<D['input']>, options?: { timeoutMs?: number }) =>
      deps.bus.call(rpc, identity, input, options),
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.list(identity, selection) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    // An unknown tool name is a protocol error (the client asked for something that does not exist).
    // A tool outside the selected toolsets is unknown here too: the client was never offered it.
    if (!catalog.selects(request.params.name, selection))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return catalog.call(request.params.name, request.params.arguments, context, selection);
  });
  return server;
}
