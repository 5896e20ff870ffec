import { createHttpApp, createLogger, describeRoutes, type HttpApp } from '@voice/kit';
import { allOperations, errorEnvelopeSchema, publicRoutes } from '@voice/proto';
import { z } from 'zod';
import { isPublicPath, requiredScope } from '../auth/scopes.js';

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
 * Builds the public OpenAPI 3.1 document from the operations' definitions alone, with no service running:
 * their routes are registered on an app that serves nothing, whose swagger document (@fastify/swagger, from
 * the zod schemas the services validate with) is decorated with what the gateway adds. The services register
 * the same routes from the same definitions, so the document is theirs. `npm run generate:api` writes it
 * to openapi.json, and the gateway serves it.
 */
export async function buildOpenApiDocument(): Promise<JsonObject> {
  const app = await createHttpApp({ name: 'voice', logger: createLogger('openapi', 'silent'), readiness: {} });
  describeRoutes(app, allOperations, publicRoutes);
  await app.ready();
  const described = app.swagger() as OpenApiDocument;
  await app.close();

  const paths: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(described.paths ?? {})) {
    if (!path.startsWith('/api/')) continue;
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [method, methods.includes(method) ? decorate(path, method, operation) : operation]),
    );
  }
  const schemas: Record<string, unknown> = {
    Error: z.toJSONSchema(errorEnvelopeSchema, { target: 'draft-2020-12', io: 'output' }),
    ...(described.components?.schemas ?? {}),
  };
  const { $schema: _ignored, ...errorSchema } = schemas.Error as JsonObject;
  schemas.Error = errorSchema;
  const referenced = referencedSchemas(paths, schemas);
  return {
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
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: bearerDescription } },
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => referenced.has(name))),
    },
    paths,
  };
}

export function openApiRoute(app: HttpApp): void {
  // Built once, on the first request: it depends on the definitions only, and start-up need not wait for it.
  let document: Promise<JsonObject> | undefined;
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => {
    document ??= buildOpenApiDocument();
    return document;
  });
}
