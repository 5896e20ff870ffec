import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  JSONRPCRequestSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import type { Identity, McpSelection } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { headerValue } from '../headers.js';
import { isPlainObject } from '../json.js';
import type { ToolCatalog } from './catalog.js';
import { serverInfo } from './server.js';
import { toolContext } from './tool.js';

/**
 * A `tools/call` that the SDK would hand to our handler as it is, and whose answer is one JSON body, answered
 * without the SDK's per-request server.
 *
 * Why: building the SDK's server and transport for each request (stateless HTTP allows nothing else) cost a tool
 * call about a quarter of its rate against the REST call it wraps (scripts/bench/README.md, "MCP `tools/call`
 * against REST"). For the call most requests are, the answer is exactly the catalogue's result in a JSON-RPC
 * envelope, so it is given directly. Everything else, including every request the SDK would refuse or treat
 * specially, still goes to the SDK, which answers it as before: the checks below are the SDK's own where it
 * exports them (its schemas, its media-type check, its protocol versions, the 2026 classifier) and stricter
 * where it does not (the 2026 standard headers must equal the body exactly), and a request is taken here only
 * when all of them pass. `test/direct-call.int.test.ts` holds both paths to the same answers, in both eras.
 */
export interface PlainToolCall {
  era: '2025-11-25' | '2026-07-28';
  id: RequestId;
  params: CallToolRequest['params'];
}

/** The one 2026 revision this server speaks; the SDK's list of modern revisions is not exported. */
const modernRevision = '2026-07-28';
const envelopeKeys = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

/**
 * The call, when the request is one the SDK would pass to the tools/call handler unchanged: the Accept and
 * Content-Type headers its transports check, one JSON-RPC request (no batch) valid as tools/call, no task (an
 * MCP task instead), a tool the selection offers (an unknown one is the SDK's error to give), and per era:
 * - 2025-11-25: a supported protocol-version header or none, and no `_meta` at all (progress, related tasks);
 * - 2026-07-28: the SDK's classifier says modern, with the envelope's revision this server's; the
 *   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers present and equal to the body's; `_meta`
 *   holding the envelope only and params nothing but the name and arguments (no request state); and not an
 *   approval tool (its 2026 answer depends on the declared capabilities: modern.ts).
 */
export function plainToolCall(
  headers: IncomingHttpHeaders,
  body: unknown,
  catalog: ToolCatalog,
  identity: Identity,
  selection: McpSelection,
): PlainToolCall | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call') return undefined;
  const accept = headerValue(headers, 'accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headerValue(headers, 'content-type') ?? null)) return undefined;
  const message = JSONRPCRequestSchema.safeParse(body);
  const call = CallToolRequestSchema.safeParse(body);
  if (!message.success || !call.success) return undefined;
  const { params } = call.data;
  if (params.task !== undefined || !catalog.selects(params.name, identity, selection)) return undefined;
  const version = headerValue(headers, 'mcp-protocol-version');
  const meta = isPlainObject(body.params) ? body.params._meta : undefined;
  if (meta === undefined) {
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    return { era: '2025-11-25', id: message.data.id, params };
  }
  if (version !== modernRevision || !isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== modernRevision) return undefined;
  if (headerValue(headers, 'mcp-method') !== 'tools/call' || headerValue(headers, 'mcp-name') !== params.name) return undefined;
  if (!Object.keys(meta).every((key) => envelopeKeys.has(key))) return undefined;
  if (!Object.keys(body.params as object).every((key) => key === 'name' || key === 'arguments' || key === '_meta')) return undefined;
  if (catalog.isApprovalTool(params.name, identity, selection)) return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: 'tools/call',
    mcpNameHeader: params.name,
    body,
  });
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  const { _meta, ...withoutEnvelope } = params;
  return { era: modernRevision, id: message.data.id, params: withoutEnvelope };
}

/** The JSON-RPC response the SDK would send for the call, as its JSON text. */
export async function answerToolCall(
  deps: McpDeps,
  catalog: ToolCatalog,
  identity: Identity,
  selection: McpSelection,
  { era, id, params }: PlainToolCall,
): Promise<string> {
  const result = await catalog.call(params.name, params.arguments, toolContext(deps, identity), selection);
  if (era === '2025-11-25') return JSON.stringify({ result, jsonrpc: '2.0', id });
  // What the 2026 SDK stamps on every result of that revision: its type, and the server's identity.
  const modern = { ...result, resultType: 'complete', _meta: { ...result._meta, [SERVER_INFO_META_KEY]: serverInfo } };
  return JSON.stringify({ result: modern, jsonrpc: '2.0', id });
}
