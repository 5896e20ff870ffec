import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { ApiError, type HttpApp, identityOf, urlPath } from '@voice/kit';
import { type Identity, type McpSelection, mcpPath, mcpSelection, narrowSelection, parseMcpPath } from '@voice/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpDeps } from '../deps.js';
import { headerValue } from '../headers.js';
import { isPlainObject } from '../json.js';
import type { ToolCatalog } from '../mcp/catalog.js';
import { answerToolCall, type PlainToolCall, plainToolCall } from '../mcp/direct-call.js';
import { ElicitationAnswers, relayAnswers, wantsElicitation } from '../mcp/elicitation.js';
import { authInfoOf, modernMcpHandler } from '../mcp/modern.js';
import { createMcpServer } from '../mcp/server.js';
import { newSessionId, sessionFeatures, sessionKey } from '../mcp/session.js';

/**
 * Browsers send Origin; a page on a foreign origin must not drive the server with a visitor's network
 * position (DNS rebinding), so such requests are refused. Clients outside browsers send no Origin.
 */
export function checkOrigin(origin: string | undefined, allowed: readonly string[]): void {
  if (origin === undefined) return;
  if (allowed.includes(origin.replace(/\/$/, ''))) return;
  throw new ApiError('forbidden', `Origin ${origin.slice(0, 200)} is not allowed to use this MCP server.`, { param: 'origin' });
}

const methodNotAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
  reply
    .status(405)
    .header('allow', 'POST')
    .send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this server is stateless; send JSON-RPC with POST.' },
      id: null,
    });

/** The endpoint and its selection URLs (`parseMcpPath` in proto reads them; the gateway routes them all here). */
const mcpPaths = [mcpPath, `${mcpPath}/readonly`, `${mcpPath}/x/:toolsets`, `${mcpPath}/x/:toolsets/readonly`];

/**
 * The toolsets and read-only mode of a request, from its URL and its `X-MCP-Toolsets` / `X-MCP-Readonly`
 * headers; a wrong one is a 400 envelope before any MCP is spoken, naming the known toolsets (a live
 * credential naming the test-only `testing` toolset too, saying it needs a test credential). An OAuth
 * access token's identity carries the MCP URL its grant was issued for (`resource`, signed by the gateway):
 * the selection is narrowed to what that URL selects, so headers narrow a token's reach, never widen it.
 */
export function selectionOf(request: FastifyRequest, identity: Pick<Identity, 'resource' | 'org_id'>): McpSelection {
  const headers = { toolsets: headerValue(request.headers, 'x-mcp-toolsets'), readonly: headerValue(request.headers, 'x-mcp-readonly') };
  const result = mcpSelection(urlPath(request.url), headers, identity);
  if (!result.ok) throw new ApiError('invalid_request', result.message, { param: result.param });
  if (identity.resource === undefined) return result.selection;
  const granted = parseMcpPath(identity.resource);
  // The gateway signs only resources it parsed; anything else grants nothing.
  if (!granted?.ok) throw new ApiError('forbidden', 'This access token was issued for no MCP URL.');
  return narrowSelection(result.selection, granted.selection);
}

const isInitialize = (body: unknown) => isPlainObject(body) && body.method === 'initialize';

/**
 * The request as the SDK's web-standard handler takes it: the method, the URL and the headers; the body is
 * fastify's parsed one, given alongside (`parsedBody`), so it is read once.
 */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of Object.keys(request.headers)) {
    const value = headerValue(request.headers, name);
    if (value !== undefined) headers.set(name, value);
  }
  return new Request(`http://${request.hostname || 'mcp'}${request.url}`, { method: request.method, headers });
}

/**
 * Whether the request is of the 2025 era, as the SDK's `isLegacyRequest` classifies it. Given the parsed body,
 * that reads only the method and three headers, so they are all it is given: a whole web `Request` per call
 * cost the 2025 leg more than the classification. A POST without a JSON body is the 2025 leg's to refuse.
 */
function isLegacy(request: FastifyRequest): Promise<boolean> {
  if (request.body === undefined || request.body === null) return Promise.resolve(true);
  const get = (name: string) => headerValue(request.headers, name) ?? null;
  const headersOnly = { method: request.method, headers: { get } } as unknown as Request;
  return isLegacyRequest(headersOnly, request.body);
}

async function sendResponse(reply: FastifyReply, requestId: string, response: Response): Promise<FastifyReply> {
  reply.status(response.status).header('request-id', requestId);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  return reply.send(await response.text());
}

/**
 * A direct answer (mcp/direct-call.ts), written as each era's SDK path writes its own: the 2025 leg's hijacked
 * (so no fastify headers), the 2026 leg's through `sendResponse`.
 */
async function sendDirect(reply: FastifyReply, requestId: string, answer: string, era: PlainToolCall['era']): Promise<FastifyReply> {
  if (era === '2026-07-28') return reply.header('request-id', requestId).header('content-type', 'application/json').send(answer);
  reply.hijack();
  reply.raw.writeHead(200, { 'request-id': requestId, 'content-type': 'application/json' }).end(answer);
  return reply;
}

export function mcpRoutes(app: HttpApp, deps: McpDeps, catalog: ToolCatalog): void {
  const sessions = sessionKey(deps.env.INTERNAL_SIGNING_SECRET);
  const answers = new ElicitationAnswers(deps);
  const modern = modernMcpHandler(deps, catalog);
  const originCheck = async (request: FastifyRequest) => checkOrigin(request.headers.origin, deps.env.MCP_ALLOWED_ORIGINS);

  const selectionCheck = async (request: FastifyRequest) => {
    selectionOf(request, identityOf(request));
  };

  for (const path of mcpPaths) {
    app.post(
      path,
      // Reaching the server needs a read key; each tool then checks its own scope against the caller's.
      { schema: { hide: true }, config: { scope: 'read' }, preHandler: originCheck },
      async (request, reply) => {
        // Read before the reply is hijacked, so that a wrong selection is still an envelope.
        const identity = identityOf(request);
        const selection = selectionOf(request, identity);
        const body = request.body;
        // The call most requests are is answered without the SDK's server and transport (mcp/direct-call.ts):
        // in the 2026 era at once, in the 2025 era once it is known to show no elicitation (below).
        const plain = deps.env.MCP_DIRECT_TOOL_CALLS ? plainToolCall(request.headers, body, catalog, identity, selection) : undefined;
        const answerDirectly = async (call: PlainToolCall) =>
          sendDirect(reply, request.id, await answerToolCall(deps, catalog, identity, selection, call), call.era);
        if (plain?.era === '2026-07-28') return answerDirectly(plain);
        // Both eras at one URL: a request carrying the 2026-07-28 `_meta` envelope goes to that era's handler. A
        // plain 2025 call has no `_meta` and no modern version header, which is what the SDK calls legacy.
        if (plain === undefined && !(await isLegacy(request))) {
          const modernResponse = await modern.fetch(webRequest(request), {
            authInfo: authInfoOf({ identity, selection }),
            parsedBody: body,
          });
          return sendResponse(reply, request.id, modernResponse);
        }
        // A client's answer to an elicitation that a tool call (here or on another replica) is waiting on.
        if (relayAnswers(deps, identity, body)) return reply.status(202).send();
        const sessionId = request.headers['mcp-session-id'];
        const features = sessionFeatures(typeof sessionId === 'string' ? sessionId : undefined, sessions);
        const elicits = wantsElicitation(body, features, identity, selection, catalog);
        if (plain && !elicits) return answerDirectly(plain);
        const server = createMcpServer(deps, catalog, identity, selection, elicits ? answers : undefined, features.apps);
        // Stateless: one JSON response per request (no stream to keep open), except a tool call that shows an
        // elicitation, which needs a stream to send it on. The session id of `initialize` only carries the
        // client's capabilities (session.ts); no later request is checked against it.
        const params = (body as { params?: { capabilities?: ClientCapabilities } } | undefined)?.params;
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: isInitialize(body) ? () => newSessionId(params?.capabilities, sessions) : undefined,
          enableJsonResponse: !elicits,
        });
        reply.hijack();
        reply.raw.setHeader('request-id', request.id);
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        try {
          await server.connect(transport);
          await transport.handleRequest(request.raw, reply.raw, request.body);
        } catch (error) {
          request.log.error({ err: error }, 'mcp request failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { 'content-type': 'application/json' });
            reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
          }
        }
      },
    );

    app.get(path, { schema: { hide: true }, config: { scope: 'read' }, preHandler: [originCheck, selectionCheck] }, methodNotAllowed);
    app.delete(path, { schema: { hide: true }, config: { scope: 'read' }, preHandler: [originCheck, selectionCheck] }, methodNotAllowed);
  }
}
