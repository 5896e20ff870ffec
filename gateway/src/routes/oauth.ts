import { ApiError, type HttpApp, urlPath } from '@voice/kit';
import type { GatewayEnv } from '../env.js';
import {
  mcpPathOfMetadata,
  protectedResourceMetadata,
  resourceMetadataPath,
  restMetadataPath,
  restResourceMetadata,
} from '../oauth/metadata.js';

/**
 * What browser-based OAuth clients call across origins: the metadata documents, token exchange, client
 * registration and revocation. None takes a cookie (a client authenticates itself in the request), so any
 * origin may read their answers. `/oauth/authorize` is not among them: people reach it by navigation.
 * The metadata of the MCP server's toolset and read-only URLs is cross-origin too (`mcpPathOfMetadata`).
 */
const crossOriginPaths = new Set([
  resourceMetadataPath,
  `${resourceMetadataPath}/api/mcp`,
  restMetadataPath,
  '/.well-known/oauth-authorization-server',
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
]);

const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-max-age': '86400',
};

/**
 * The protected resource metadata (RFC 9728) of the MCP server, at both addresses clients look for it, and
 * at the path-suffixed address of each toolset and read-only URL (naming that URL as the resource); and
 * the REST API's, which names no authorization server (it takes API keys only).
 */
export function oauthRoutes(app: HttpApp, env: GatewayEnv): void {
  const metadata = protectedResourceMetadata(env);
  for (const path of [resourceMetadataPath, `${resourceMetadataPath}/api/mcp`]) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=3600');
      return metadata;
    });
  }
  const rest = restResourceMetadata(env);
  app.get(restMetadataPath, { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('cache-control', 'public, max-age=3600');
    return rest;
  });
  app.get(`${resourceMetadataPath}/api/mcp/*`, { schema: { hide: true } }, async (request, reply) => {
    const resourcePath = mcpPathOfMetadata(urlPath(request.url));
    if (!resourcePath) throw new ApiError('not_found', 'No such protected resource: the MCP URLs are /api/mcp[/x/{toolsets}][/readonly].');
    void reply.header('cache-control', 'public, max-age=3600');
    return protectedResourceMetadata(env, resourcePath);
  });

  // Runs on every request, so a `done` hook: no promise for the API calls it lets through untouched.
  app.addHook('onRequest', (request, reply, done) => {
    const path = urlPath(request.url);
    if (!crossOriginPaths.has(path) && !mcpPathOfMetadata(path)) {
      done();
      return;
    }
    void reply.headers(corsHeaders);
    // A preflight is answered here (and `done` not called): the console and the routes above need not know about it.
    if (request.method === 'OPTIONS') void reply.code(204).send();
    else done();
  });
}
