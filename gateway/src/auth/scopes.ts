import { allOperations, parseMcpPath, type Scope } from '@voice/proto';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

/**
 * The scope each REST route needs is its operation's, read from the operations' definitions (proto's
 * catalogue) with the router fastify uses, so the gateway matches a path exactly as the service will.
 * That is the only place an operation's scope is stated: the service serves the route from the same
 * definition and enforces the same scope, so the two cannot drift.
 */
const routes = FindMyWay();
for (const operation of allOperations) {
  for (const route of operation.http) routes.on(route.method, route.path, () => undefined, { scope: operation.scope });
}

const isMcpEndpoint = (path: string) => parseMcpPath(path) !== undefined;

/**
 * The scope a request needs. MCP requests need `read` to reach the server, at `/api/mcp` and at its
 * toolset and read-only URLs (`/api/mcp/x/{toolsets}`, `/readonly`): each tool then checks its own scope.
 * A path no operation declares is answered 404 by the service; until then it needs what its method says
 * (reading `read`, anything else `read-write`), never less.
 */
export function requiredScope(method: string, path: string): Scope {
  if (isMcpEndpoint(path) && (method === 'GET' || method === 'POST' || method === 'DELETE')) return 'read';
  const found = routes.find((method === 'HEAD' ? 'GET' : method) as HTTPMethod, path);
  const declared = (found?.store as { scope?: Scope } | undefined)?.scope;
  if (declared) return declared;
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'read' : 'read-write';
}

/**
 * Routes anyone may call without a key: the API description, the public audit, inbound callbacks, and the
 * console's pages (people sign in there; the console checks its own session).
 */
export function isPublicPath(path: string): boolean {
  return path === '/api/v1/openapi.json' || path.startsWith('/api/public/') || path.startsWith('/api/hooks/') || isConsolePath(path);
}

export function isConsolePath(path: string): boolean {
  return path === '/dashboard' || path.startsWith('/dashboard/');
}

/** Routes that need a key: the versioned API and MCP. Anything else is not an API route. */
export function isProtectedPath(path: string): boolean {
  return (path.startsWith('/api/v1/') || path === '/api/mcp' || path.startsWith('/api/mcp/')) && !isPublicPath(path);
}
