import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Identity, McpSelection } from '@voice/proto';
import { appResourceListing, mcpApps, readAppResource } from '../apps/index.js';
import type { McpDeps } from '../deps.js';
import type { ToolCatalog } from './catalog.js';
import { type ElicitationAnswers, elicitDecision } from './elicitation.js';
import { ApprovalTaskStore } from './tasks.js';
import { toolContext } from './tool.js';

export const serverInfo = { name: 'voice-platform', version: '1.0.0' };

export const serverInstructions =
  'Tools of the voice-AI, leads and recall platform, acting inside your organization only. Lists are newest first and ' +
  'cursor-paged: pass next_cursor back as cursor. A result described as "lead: see service_recent_leads" is that record, ' +
  "whose fields that tool's output schema spells out. Destructive tools (delete lead, remove do-not-call entry, send " +
  'invoice, deliver project) only ask a person for approval (Telegram, Slack or the console) and return pending_approval; ' +
  "check the outcome with service_get_approval, or call them as MCP tasks: the task's result is the outcome once a person " +
  'decided, and tasks/cancel withdraws the request.';

/** Tasks: the approval tools may run as tasks; tasks/list and tasks/cancel are served (src/mcp/tasks.ts). */
const taskCapabilities = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** What a host may show its model at once for a task (spec, "Creating Tasks"), while the person decides. */
const immediateResponseKey = 'io.modelcontextprotocol/model-immediate-response';

/**
 * The validator a server checks a client's form-elicitation answers with. Without one the SDK builds a new
 * Ajv for each server, that is for each request here: 5% of all the CPU a tools/call cost in the bench's
 * profile (scripts/bench/README.md), for a validator that only a form elicitation would use.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * One MCP server for one HTTP request (stateless streamable HTTP: any replica answers any request). The
 * caller's identity is fixed here, from the gateway's signed headers, and reaches every tool handler;
 * nothing in a tool's arguments can change it. With `elicitation`, the request is a tool call of an approval
 * tool answered on an SSE stream, where the approval is shown as a URL elicitation (elicitation.ts).
 */
export function createMcpServer(
  deps: McpDeps,
  catalog: ToolCatalog,
  identity: Identity,
  selection: McpSelection,
  elicitation?: ElicitationAnswers,
  apps = false,
): Server {
  const tasks = new ApprovalTaskStore(deps, identity);
  const server = new Server(serverInfo, {
    capabilities: { tools: { listChanged: false }, tasks: taskCapabilities, resources: {} },
    instructions: serverInstructions,
    jsonSchemaValidator,
    // The SDK serves tasks/get, tasks/result (waiting for a finished task by polling this store), tasks/list
    // and tasks/cancel from it; every answer is read from the database.
    taskStore: tasks,
  });
  const context = toolContext(deps, identity, elicitation ? identity.owner_user_id : undefined);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.list(identity, selection, { apps }) }));
  // The MCP Apps' views (src/apps): listed and read whatever the client declared; only tools name them.
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: mcpApps.map(appResourceListing) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const read = readAppResource(request.params.uri);
    if (!read) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
    // A fresh object: the SDK's result type is open to more fields, the registry's is not.
    return { ...read };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // An unknown tool name is a protocol error (the client asked for something that does not exist).
    // A tool outside the selected toolsets is unknown here too: the client was never offered it.
    // So is a test helper for a live credential: it exists in test mode only (its operation would be not_found).
    if (!catalog.selects(request.params.name, identity, selection))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    if (request.params.task) {
      const taskId = await catalog.startTask(request.params.name, request.params.arguments, context, selection);
      const task = await tasks.getTask(taskId);
      if (!task) throw new McpError(ErrorCode.InternalError, `Task ${taskId} vanished.`);
      return { task, _meta: { [immediateResponseKey]: `Approval requested, nothing done yet. ${task.statusMessage ?? ''}` } };
    }
    const result = await catalog.call(request.params.name, request.params.arguments, context, selection);
    if (!elicitation || !catalog.isApprovalTool(request.params.name, identity, selection)) return result;
    return elicitDecision({
      deps,
      identity,
      server,
      answers: elicitation,
      relatedRequestId: extra.requestId,
      signal: extra.signal,
      pending: result,
    });
  });
  return server;
}
