import type { HttpApp } from '@voice/kit';
import { errorEnvelopeSchema } from '@voice/proto';
import { z } from 'zod';
import { isPublicPath, requiredScope } from '../auth/scopes.js';
import type { GatewayEnv } from '../env.js';
import { upstreamRoutes } from '../proxy/upstreams.js';

type JsonObject = Record<string, unknown>;
export interface OpenApiDocument {
  paths?: Record<string, Record<string, JsonObject>>;
  components?: { schemas?: Record<string, unknown> };
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const errorResponses: Record<string, string> = {
  '400': 'Invalid request (`invalid_request`, `invalid_cursor`)',
  '401':
    'No credential (`missing`), an unknown key (`unknown_key`), a revoked key (`revoked`), or an OAuth access token, which is for the MCP URL it was granted for and not for this API (`invalid_token`); `WWW-Authenticate` names the protected resource metadata',
  '403': 'The key lacks the scope (`forbidden_scope`) or the plan lacks the feature (`plan_required`)',
  '404': 'No such resource in your organization (`not_found`)',
  '429': 'Monthly quota used up (`quota_exceeded`) or daily plan limit reached (`rate_limited`); see Retry-After',
  '503': 'A dependency is unavailable (`unavailable`); retry',
};

/**
 * The one security scheme: an API key. An OAuth access token is bound to the MCP URL it was granted for
 * (RFC 8707), so this API refuses it; MCP clients find the authorization server from the MCP server's metadata.
 */
export const bearerDescription =
  'Authorization: Bearer <API key (vk_live_…)>. The REST API takes API keys only: an OAuth access token (vk_oat_…) works on the MCP URL it was granted for (/api/mcp, or one of its toolset and read-only URLs), whose metadata at /.well-known/oauth-protected-resource/api/mcp… (RFC 9728) names the authorization server, and is refused here with 401 invalid_token.';

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: "The key's monthly quota", schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left this month', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the monthly quota resets (Unix seconds)', schema: { type: 'integer' } },
  'Request-Id': { description: 'This request, for support', schema: { type: 'string' } },
  'Trace-Id': {
    description:
      "This request's trace (W3C trace id), when the platform traces requests: the id to look the request up in its tracing backend",
    schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
  },
};

async function fetchDocument(url: string, timeoutMs: number): Promise<OpenApiDocument> {
  const response = await fetch(new URL('/openapi.json', url), { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

/** Adds what the gateway does to every operation: security, scope, rate-limit, request and trace id headers, error responses. */
function decorate(path: string, method: string, operation: JsonObject): JsonObject {
  const open = isPublicPath(path);
  const responses = { ...((operation.responses as JsonObject | undefined) ?? {}) };
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('2') && response && typeof response === 'object') {
      responses[status] = {
        ...(response as JsonObject),
        headers: { ...rateLimitHeaders, ...((response as JsonObject).headers as JsonObject) },
      };
    }
  }
  for (const [status, description] of Object.entries(errorResponses)) {
    if (open && (status === '401' || status === '403')) continue;
    responses[status] ??= { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    ...operation,
    security: open ? [] : [{ apiKey: [] }],
    ...(open ? {} : { 'x-scope': requiredScope(method.toUpperCase(), path) }),
    responses,
  };
}

const schemaRef = /^#\/components\/schemas\/(.+)$/;

/**
 * The component schemas the paths reach, directly or through other components. Each service's document
 * lists every registered schema in both forms (as sent and as answered), most of which no operation uses;
 * the public document keeps only what it references.
 */
function referencedSchemas(paths: JsonObject, schemas: Record<string, unknown>): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        const name = key === '$ref' && typeof value === 'string' ? schemaRef.exec(value)?.[1] : undefined;
        if (name !== undefined) {
          if (!found.has(name)) {
            found.add(name);
            visit(schemas[name]);
          }
        } else visit(value);
      }
    }
  };
  visit(paths);
  return found;
}

/**
 * Builds the public OpenAPI 3.1 document: every service's document (generated by @fastify/swagger from
 * the zod schemas that validate its requests) merged with the gateway's own routes.
 */
export async function buildOpenApiDocument(app: HttpApp, env: GatewayEnv): Promise<{ document: JsonObject; missing: string[] }> {
  const routes = upstreamRoutes(env);
  const services = new Map(routes.map((route) => [route.service, route.upstream]));
  const missing: string[] = [];
  // The gateway's own document lists its proxy wildcards too; the services describe those paths.
  const own = app.swagger() as OpenApiDocument;
  const proxied = (path: string) => routes.some((route) => path === route.prefix || path.startsWith(`${route.prefix}/`));
  const ownPaths = Object.fromEntries(Object.entries(own.paths ?? {}).filter(([path]) => !proxied(path)));
  const documents: OpenApiDocument[] = [{ ...own, paths: ownPaths }];
  const fetched = await Promise.allSettled([...services.values()].map((url) => fetchDocument(url, 2_000)));
  [...services.keys()].forEach((service, index) => {
    const result = fetched[index];
    if (result?.status === 'fulfilled') {
      documents.push(result.value);
    } else missing.push(service);
  });

  const paths: Record<string, JsonObject> = {};
  const schemas: Record<string, unknown> = {
    Error: z.toJSONSchema(errorEnvelopeSchema, { target: 'draft-2020-12', io: 'output' }),
  };
  for (const document of documents) {
    Object.assign(schemas, document.components?.schemas ?? {});
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      if (!path.startsWith('/api/')) continue;
      const decorated: JsonObject = { ...(paths[path] ?? {}) };
      for (const [method, operation] of Object.entries(item)) {
        decorated[method] = methods.includes(method) ? decorate(path, method, operation) : operation;
      }
      paths[path] = decorated;
    }
  }
  const { $schema: _ignored, ...errorSchema } = schemas.Error as JsonObject;
  schemas.Error = errorSchema;
  const referenced = referencedSchemas(paths, schemas);
  return {
    missing,
    document: {
      openapi: '3.1.0',
      info: {
        title: 'Voice platform API',
        version: '1.0.0',
        description:
          'REST API of the voice-AI, leads and recall service. Authenticate with `Authorization: Bearer <key>`. ' +
          'Every list is cursor-paginated (`limit`, `cursor` → `data`, `has_more`, `next_cursor`). Errors use one envelope: ' +
          '`{"error": {"code", "message", "param", "request_id"}}`. Operations carry `x-scope`: the key scope they need.',
      },
      servers: [{ url: '/' }],
      ...(missing.length > 0 ? { 'x-unavailable-services': missing } : {}),
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: bearerDescription } },
        schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => referenced.has(name))),
      },
      paths,
    },
  };
}

export function openApiRoute(app: HttpApp, env: GatewayEnv): void {
  let cached: { document: JsonObject; atMs: number } | undefined;
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => {
    // Rebuilt at most every 30 s, and again soon when a service was missing from the last build.
    if (cached && Date.now() - cached.atMs < 30_000) return cached.document;
    const { document, missing } = await buildOpenApiDocument(app, env);
    cached = { document, atMs: missing.length > 0 ? Date.now() - 25_000 : Date.now() };
    return document;
  });
}
