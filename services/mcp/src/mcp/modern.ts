import {
  type AuthInfo,
  type CallToolResult,
  createMcpHandler,
  type McpHttpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Identity, McpSelection } from '@voice/proto';
import { appResourceListing, appsDeclared, mcpApps, readAppResource } from '../apps/index.js';
import type { McpDeps } from '../deps.js';
import { type ApprovalStateCodec, approvalFollowUp, approvalStateCodec, askForApproval, asksByUrl } from './approval-input.js';
import type { ToolCatalog } from './catalog.js';
import { clientCapabilities } from './envelope.js';
import { serverInfo } from './server.js';
import { ApprovalTaskStore } from './tasks.js';
import { declaresTasks, serveTasksV2, tasksExtension, taskV2 } from './tasks-v2.js';
import { toolContext } from './tool.js';

/**
 * The 2026-07-28 era: one server per HTTP request from the SDK's `createMcpHandler` (no `initialize`, no
 * session: the protocol version and the client's capabilities travel in each request's `_meta`). It serves
 * the same catalogue as the 2025 leg (server.ts): the same tools, toolsets, read-only mode and scopes; only
 * the list's schemas (`ToolCatalog.listModern`) and the approvals' shape (approval-input.ts) differ.
 *
 * 2025-era requests never reach this handler (`legacy: 'reject'`): routes/mcp.ts sends them to the 2025
 * leg, whose URL elicitation and tasks need the signed session id that the SDK's stateless fallback drops.
 */

/** Who asks and what they selected, as the route read them from the gateway's signed headers. */
interface Caller {
  identity: Identity;
  selection: McpSelection;
}

/** The SDK hands `authInfo` through to the factory untouched; the caller rides in its `extra`. */
export function authInfoOf(caller: Caller): AuthInfo {
  return { token: '', clientId: caller.identity.key_id, scopes: [caller.identity.scope], extra: { caller } };
}

function callerOf(authInfo: AuthInfo | undefined): Caller {
  const caller = authInfo?.extra?.caller as Caller | undefined;
  // The route always passes one; a request without it must not become a caller without limits.
  if (!caller) throw new Error('MCP request without a caller');
  return caller;
}

/** The 2025 text (server.ts) without what this era does not have: pointers in schemas, and tasks. */
const instructions =
  'Tools of the voice-AI, leads and recall platform, acting inside your organization only. Lists are newest first and ' +
  'cursor-paged: pass next_cursor back as cursor. Destructive tools (delete lead, remove do-not-call entry, send ' +
  'invoice, deliver project) only ask a person for approval (the console, Telegram or Slack): a client that takes URL ' +
  "input is shown the approval's console page and gets the outcome when it sends the call again; otherwise they return " +
  'pending_approval: check the outcome with service_get_approval.';

/**
 * How long a client may keep a `tools/list`: the list changes only with a deployment, but a credential's
 * scope or grant may change, so each client keeps its own (private) for a few minutes.
 */
const listCacheHint = { ttlMs: 5 * 60_000, cacheScope: 'private' as const };

export function modernMcpHandler(deps: McpDeps, catalog: ToolCatalog): McpHttpHandler {
  const codec = approvalStateCodec(deps);
  return createMcpHandler(({ authInfo }) => modernServer(deps, catalog, codec, callerOf(authInfo)), {
    legacy: 'reject',
    // 'auto': one JSON body, since no tool sends anything before its result.
    // Fastify read the body already, under the service's own limit (requestBodyLimitBytes.mcp).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    onerror: (error) => deps.logger.debug({ err: error }, 'mcp request refused'),
  });
}

function modernServer(deps: McpDeps, catalog: ToolCatalog, codec: ApprovalStateCodec, { identity, selection }: Caller): Server {
  const server = new Server(serverInfo, {
    capabilities: { tools: { listChanged: false }, resources: {}, extensions: { [tasksExtension]: {} } },
    instructions,
    cacheHints: { 'tools/list': listCacheHint, 'resources/list': listCacheHint, 'resources/read': listCacheHint },
    requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
  });
  const context = toolContext(deps, identity);
  const tasks = new ApprovalTaskStore(deps, identity);
  serveTasksV2(server, tasks);
  server.setRequestHandler('tools/list', async (_request, ctx) => ({
    tools: catalog.listModern(identity, selection, { apps: appsDeclared(clientCapabilities(ctx)) }) as Tool[],
  }));
  // The MCP Apps' views (src/apps), as in the 2025 era.
  server.setRequestHandler('resources/list', async () => ({ resources: mcpApps.map(appResourceListing) }));
  server.setRequestHandler('resources/read', async (request) => {
    const read = readAppResource(request.params.uri);
    if (!read) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
    // A fresh object: the SDK's result type is open to more fields, the registry's is not.
    return { ...read };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    // As in the 2025 era: a tool outside the selection, or a test helper for a live credential, is unknown.
    if (!catalog.selects(name, identity, selection)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const byUrl = catalog.isApprovalTool(name, identity, selection) && asksByUrl(ctx, identity, selection.readonly);
    const state = ctx.mcpReq.requestState<Parameters<typeof approvalFollowUp>[4]>();
    if (state !== undefined) {
      if (!byUrl) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${name} takes no requestState.`);
      return approvalFollowUp(deps, ctx, identity, name, state);
    }
    // A client of the tasks extension gets an approval tool's call as a task (tasks-v2.ts).
    if (catalog.isApprovalTool(name, identity, selection) && declaresTasks(ctx)) {
      const taskId = await catalog.startTask(name, args, context, selection);
      const approval = await tasks.approval(taskId);
      if (!approval) throw new ProtocolError(ProtocolErrorCode.InternalError, `Task ${taskId} vanished.`);
      return { resultType: 'task', ...(await taskV2(tasks, approval)) } as unknown as CallToolResult;
    }
    const owner = byUrl ? identity.owner_user_id : undefined;
    const result = (await catalog.call(name, args, owner ? { ...context, bindApprovalTo: owner } : context, selection)) as CallToolResult;
    return byUrl ? askForApproval(deps, codec, identity, name, result) : result;
  });
  return server;
}
