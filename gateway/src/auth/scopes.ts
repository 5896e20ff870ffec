import { parseMcpPath, type Scope } from '@voice/proto';

/**
 * The scope a route needs, by its effect (API.md): reading needs `read`; creating, changing, sending or
 * deleting needs `read-write`. Most routes say it by their method; these POSTs only read.
 * MCP requests need `read` to reach the server, at `/api/mcp` and at its toolset and read-only URLs
 * (`/api/mcp/x/{toolsets}`, `/readonly`): each tool then checks its own scope.
 */
const readOnlyPosts = [/^\/api\/v1\/llm-recall\/?$/, /^\/api\/v1\/marketing-audit\/?$/];
const isMcpEndpoint = (path: string) => parseMcpPath(path) !== undefined;

export function requiredScope(method: string, path: string): Scope {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return 'read';
  if (method === 'POST' && (isMcpEndpoint(path) || readOnlyPosts.some((pattern) => pattern.test(path)))) return 'read';
  if (method === 'DELETE' && isMcpEndpoint(path)) return 'read';
  return 'read-write';
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
