import { isMcpPath, mcpPath } from '@voice/proto';
import type { GatewayEnv } from '../env.js';
import { publicBaseUrl } from '../env.js';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP server, and the WWW-Authenticate challenges
 * that point to it, so a client that starts from nothing but the URL of `/api/mcp` can find where to sign in.
 * The authorization server is the console, reached through the gateway at the same public address.
 * Each toolset and read-only URL of the MCP server (`/api/mcp/x/leads,calls/readonly`) is a resource of its
 * own for RFC 9728 (a client checks that the metadata names the URL it started from), with the same server.
 */
export const resourceMetadataPath = '/.well-known/oauth-protected-resource';

/** The MCP URL whose metadata this path-suffixed address is (RFC 9728 section 3.1), if it is one. */
export function mcpPathOfMetadata(path: string): string | undefined {
  if (!path.startsWith(resourceMetadataPath)) return undefined;
  const resourcePath = path.slice(resourceMetadataPath.length);
  return isMcpPath(resourcePath) ? resourcePath : undefined;
}

export function protectedResourceMetadata(env: Pick<GatewayEnv, 'PUBLIC_BASE_URL' | 'PORT'>, resourcePath = mcpPath) {
  const base = publicBaseUrl(env);
  return {
    resource: `${base}${resourcePath}`,
    authorization_servers: [base],
    scopes_supported: ['read', 'read-write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Voice platform MCP server',
  };
}

/** Where the REST API's own metadata is: the path-suffixed address of its resource, `<base>/api/v1`. */
export const restMetadataPath = `${resourceMetadataPath}/api/v1`;

/**
 * The REST API's protected resource metadata. It takes API keys only: no authorization server issues
 * tokens for it (an OAuth access token is for the MCP URL it was granted for, RFC 8707), so it names none,
 * and a client learns where keys come from in its documentation.
 */
export function restResourceMetadata(env: Pick<GatewayEnv, 'PUBLIC_BASE_URL' | 'PORT'>) {
  const base = publicBaseUrl(env);
  return {
    resource: `${base}/api/v1`,
    scopes_supported: ['read', 'read-write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Voice platform REST API (API keys only)',
    resource_documentation: `${base}/api/v1/openapi.json`,
  };
}

/**
 * The challenges for a request path. Each MCP URL's metadata lives at the path-suffixed address RFC 9728
 * derives from its resource URL, and names the console as its authorization server; the REST API's 401s
 * point at the REST API's own document, which names none: it takes API keys, never access tokens.
 */
export function challengesFor(env: Pick<GatewayEnv, 'PUBLIC_BASE_URL' | 'PORT'>) {
  const base = publicBaseUrl(env);
  const build = (metadataUrl: string) => {
    const metadata = `resource_metadata="${metadataUrl}"`;
    return {
      /** No credential sent: where to find how to get one. */
      missing: `Bearer ${metadata}`,
      /** A credential was sent and refused (unknown, revoked or expired). */
      invalidToken: `Bearer error="invalid_token", ${metadata}`,
      /** An access token sent to a resource it was not issued for (RFC 8707 audience): this URL's metadata says how to get one for it. */
      otherResource: `Bearer error="invalid_token", error_description="This access token was issued for another resource", ${metadata}`,
      /** The credential lacks the scope; a client may ask the person for more. */
      insufficientScope: (scope: string) => `Bearer error="insufficient_scope", scope="${scope}", ${metadata}`,
    };
  };
  // Two sets of strings for the common paths; only a toolset or read-only URL builds its own.
  const mcp = build(`${base}${resourceMetadataPath}${mcpPath}`);
  const rest = build(`${base}${restMetadataPath}`);
  return (path: string) => {
    if (path === mcpPath) return mcp;
    if (!path.startsWith(`${mcpPath}/`)) return rest;
    return isMcpPath(path) ? build(`${base}${resourceMetadataPath}${path}`) : mcp;
  };
}

export type Challenges = ReturnType<ReturnType<typeof challengesFor>>;
