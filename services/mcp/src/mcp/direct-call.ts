import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  JSONRPCRequestSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Identity, McpSelection } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { headerValue } from '../headers.js';
import type { ToolCatalog } from './catalog.js';
import { toolContext } from './tool.js';

/**
 * A 2025-era `tools/call` that the SDK would hand to our handler as it is, and whose answer is one JSON body.
 *
 * Why: building the SDK's server and transport for each request (stateless HTTP allows nothing else in the
 * 2025 SDK) cost a tool call about a third of its rate against the REST call it wraps (scripts/bench/README.md,
 * "MCP `tools/call` against REST"). For the call most requests are, the answer is exactly the catalogue's
 * result in a JSON-RPC envelope, so it is given directly. Everything else, including every request the SDK
 * would refuse or treat specially, still goes to the SDK, which answers it as before: the checks below are the
 * SDK's own (its schemas, its media-type check, its protocol versions), and a request is taken here only when
 * all of them pass. `test/direct-call.int.test.ts` holds both paths to the same answers.
 */
export interface PlainToolCall {
  id: RequestId;
  params: CallToolRequest['params'];
}

/**
 * The call, when the request is one the SDK's transport and server would pass to the tools/call handler
 * unchanged: the Accept, Content-Type and protocol-version headers it checks, one JSON-RPC request (no batch),
 * valid tools/call params, no task (started as an MCP task instead), no `_meta` (progress, related tasks), and a
 * tool the selection offers (an unknown one is the SDK's error to give).
 */
export function plainToolCall(
  headers: IncomingHttpHeaders,
  body: unknown,
  catalog: ToolCatalog,
  identity: Identity,
  selection: McpSelection,
): PlainToolCall | undefined {
  if (typeof body !== 'object' || body === null || (body as { method?: unknown }).method !== 'tools/call') return undefined;
  const accept = headerValue(headers, 'accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headerValue(headers, 'content-type') ?? null)) return undefined;
  const version = headerValue(headers, 'mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const message = JSONRPCRequestSchema.safeParse(body);
  const call = CallToolRequestSchema.safeParse(body);
  if (!message.success || !call.success) return undefined;
  const { params } = call.data;
  if (params.task !== undefined || params._meta !== undefined) return undefined;
  if (!catalog.selects(params.name, identity, selection)) return undefined;
  return { id: message.data.id, params };
}

/** The JSON-RPC response the SDK would send for the call, as its JSON text. */
export async function answerToolCall(
  deps: McpDeps,
  catalog: ToolCatalog,
  identity: Identity,
  selection: McpSelection,
  { id, params }: PlainToolCall,
): Promise<string> {
  const result = await catalog.call(params.name, params.arguments, toolContext(deps, identity), selection);
  return JSON.stringify({ result, jsonrpc: '2.0', id });
}
