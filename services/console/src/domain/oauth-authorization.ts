import { createHash } from 'node:crypto';
import { isMcpPath, type McpSelection, type McpToolset, mcpToolsets, parseMcpPath, type Scope } from '@voice/proto';
import type { ConsoleContext } from './context.js';
import type { ClientMetadataFetch } from './oauth-client-metadata.js';
import { findClient, type OAuthClientInfo } from './oauth-clients.js';
import { OAuthError } from './oauth-errors.js';
import { redirectUriMatches } from './oauth-redirect-uris.js';
import { hashToken, newToken } from './tokens.js';

/** An authorization code works once, within this. */
export const codeLifetimeMs = 60_000;

/** The one resource these tokens are for (RFC 8707): the MCP server behind the gateway. */
export const mcpResource = (publicBaseUrl: string) => `${publicBaseUrl.replace(/\/$/, '')}/api/mcp`;
export const issuerOf = (publicBaseUrl: string) => publicBaseUrl.replace(/\/$/, '');

/**
 * Whether a `resource` names this server's MCP endpoint: `/api/mcp` itself or one of its toolset and
 * read-only URLs (`/api/mcp/x/leads,calls/readonly`), which a client configured with that URL asks a
 * token for. Exactly these: another host, path, query or fragment is another resource.
 */
export function isMcpResource(publicBaseUrl: string, resource: string | undefined): resource is string {
  const base = issuerOf(publicBaseUrl);
  if (resource === undefined || !resource.startsWith(`${base}/`)) return false;
  const path = resource.slice(base.length);
  return isMcpPath(path) && !path.endsWith('/');
}

/** What each toolset reaches, in words a person reads on the consent page. */
const toolsetWords: Record<McpToolset, string> = {
  leads: 'Leads',
  calls: 'Calls, SMS and do-not-call',
  sequences: 'Sequences',
  billing: 'Invoices and projects',
  workspace: 'Themes and workspaces',
  knowledge: 'Knowledge base',
  platform: 'Usage, audit log and approvals',
  testing: 'Test mode helpers (simulated calls, messages and events; test data only)',
};

/** The selection an MCP resource URL names (all toolsets, writing allowed, for anything else). */
export function resourceSelection(publicBaseUrl: string, resource: string): McpSelection {
  const parsed = parseMcpPath(resource.slice(issuerOf(publicBaseUrl).length));
  return parsed?.ok ? parsed.selection : { toolsets: mcpToolsets, readonly: false };
}

/**
 * What a grant for this resource reaches, in words: "Leads, read-only, through MCP", "Leads; Calls, SMS and
 * do-not-call, through MCP", "Every toolset, through MCP".
 */
export function describeResource(selection: McpSelection): string {
  const all = mcpToolsets.every((toolset) => selection.toolsets.includes(toolset));
  const what = all ? 'Every toolset' : selection.toolsets.map((toolset) => toolsetWords[toolset]).join('; ');
  return `${what}${selection.readonly ? ', read-only' : ''}, through MCP`;
}

/** What a grant's resource (a full URL, as kept) reaches, in the same words; unknown for a grant without one. */
export function describeResourceUrl(resource: string | null): string {
  if (resource === null || !URL.canParse(resource)) return 'Not known yet (set by its next refresh)';
  const parsed = parseMcpPath(new URL(resource).pathname);
  return parsed?.ok ? describeResource(parsed.selection) : 'Nothing (not an MCP URL)';
}

/** The parameters of an authorization request, as the client sent them (query) or the consent form carries them. */
export type AuthorizationParams = Record<string, string | undefined>;

/** An authorization request checked far enough to answer the client at its redirect URI. */
export interface AuthorizationRequest {
  client: OAuthClientInfo;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  /** What the resource selects: its toolsets, and whether only reading (a read-only URL grants read alone). */
  selection: McpSelection;
  /** The scopes the client asked for that exist here (none asked: both may be chosen), and the resource allows. */
  requestedScope: Scope;
}

/** An error sent back to the client's redirect URI (RFC 6749 section 4.1.2.1). */
export class RedirectableError extends OAuthError {
  constructor(
    error: string,
    description: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(error, description);
  }
}

/**
 * Checks an authorization request. The client and redirect URI first: when either is wrong the error is
 * an `OAuthError` shown as a page (never a redirect to an unchecked address). Everything after that is a
 * `RedirectableError` for the client. Only the code flow with PKCE S256, only this server's MCP resource.
 */
export async function checkAuthorizationRequest(
  ctx: ConsoleContext & ClientMetadataFetch,
  params: AuthorizationParams,
): Promise<AuthorizationRequest> {
  const clientId = params.client_id;
  if (!clientId) throw new OAuthError('invalid_request', 'The request names no client (client_id is missing).');
  const client = await findClient(ctx, clientId);
  const redirectUri = params.redirect_uri;
  if (!redirectUri) throw new OAuthError('invalid_request', 'The request has no redirect_uri.');
  if (!client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
    throw new OAuthError('invalid_request', `The redirect_uri ${redirectUri} is not registered for this client.`);
  }
  const state = params.state;
  const fail = (error: string, description: string) => new RedirectableError(error, description, redirectUri, state);
  if (params.response_type !== 'code') throw fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!params.code_challenge || params.code_challenge_method !== 'S256') {
    throw fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256.');
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge)) throw fail('invalid_request', 'code_challenge is not a base64url SHA-256.');
  const resource = params.resource;
  if (!isMcpResource(ctx.env.PUBLIC_BASE_URL, resource)) {
    throw fail(
      'invalid_target',
      `resource must be ${mcpResource(ctx.env.PUBLIC_BASE_URL)}, or one of its /x/{toolsets} or /readonly URLs.`,
    );
  }
  const asked = (params.scope ?? '').split(' ').filter(Boolean);
  const known = asked.filter((scope): scope is Scope => scope === 'read' || scope === 'read-write');
  if (asked.length > 0 && known.length === 0) throw fail('invalid_scope', 'The scopes here are read and read-write.');
  const selection = resourceSelection(ctx.env.PUBLIC_BASE_URL, resource);
  // A read-only URL reaches no writing tool, so a grant for it is read, whatever the client asked.
  const requestedScope: Scope = !selection.readonly && (asked.length === 0 || known.includes('read-write')) ? 'read-write' : 'read';
  return { client, redirectUri, state, codeChallenge: params.code_challenge, resource, selection, requestedScope };
}

/** Where the browser goes back to the client: the redirect URI with the answer and `iss` (RFC 9207). */
export function clientRedirect(
  ctx: ConsoleContext,
  redirectUri: string,
  state: string | undefined,
  answer: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuerOf(ctx.env.PUBLIC_BASE_URL));
  return url.toString();
}

/** A one-time code for an approved request; the database keeps its hash. */
export async function issueCode(
  ctx: ConsoleContext,
  request: AuthorizationRequest,
  grant: { grantId: string; orgId: string; userId: string },
): Promise<string> {
  const code = newToken();
  const now = ctx.now();
  await ctx.prisma.oAuthCode.create({
    data: {
      codeHash: hashToken(code),
      clientId: request.client.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      ...grant,
      createdAt: now,
      expiresAt: new Date(now.getTime() + codeLifetimeMs),
    },
  });
  return code;
}

/** PKCE S256 (RFC 7636 section 4.6): base64url(SHA-256(verifier)) is the challenge. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}
