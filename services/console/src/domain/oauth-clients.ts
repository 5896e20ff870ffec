import { newId } from '@voice/kit';
import { z } from 'zod';
import type { ConsoleContext } from './context.js';
import { type ClientMetadataFetch, fetchClientMetadata } from './oauth-client-metadata.js';
import { OAuthError } from './oauth-errors.js';
import { redirectUrisSchema } from './oauth-redirect-uris.js';

/** A client as the authorization pages and the token endpoint see it, however it was registered. */
export interface OAuthClientInfo {
  id: string;
  name: string;
  redirectUris: string[];
  /** Where the client comes from, shown on the consent page: its metadata document's URL, or its redirect host. */
  origin: string;
}

export const registrationSchema = z.object({
  redirect_uris: redirectUrisSchema,
  client_name: z.string().trim().min(1).max(200).optional(),
  // Only public clients are registered: PKCE stands in for a secret. Anything else is refused, not ignored,
  // so a client expecting a secret knows at once.
  token_endpoint_auth_method: z.literal('none', 'only public clients (token_endpoint_auth_method "none") are registered').optional(),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token'], 'grant_types may be authorization_code and refresh_token'))
    .optional(),
  response_types: z.array(z.literal('code', 'response_types may only be code')).optional(),
});

/** Dynamic client registration (RFC 7591): a public client with exact redirect URIs. */
export async function registerClient(ctx: ConsoleContext, input: z.infer<typeof registrationSchema>) {
  const redirectUris = [...new Set(input.redirect_uris)];
  const name = input.client_name ?? new URL(redirectUris[0] as string).host;
  const client = await ctx.prisma.oAuthClient.create({
    data: { id: newId('oauthClient'), name, redirectUris, createdAt: ctx.now() },
  });
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** A client_id that names a metadata document: an https URL with a path (the MCP authorization spec). */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * The client a `client_id` names: a registered one, or the metadata document at that URL. Unknown or
 * unusable clients are `invalid_client`, which the authorization page shows as an error page: without a
 * trusted client there is no redirect URI to send the error to.
 */
export async function findClient(ctx: ConsoleContext & ClientMetadataFetch, clientId: string): Promise<OAuthClientInfo> {
  if (isMetadataDocumentId(clientId)) {
    const document = await fetchClientMetadata(ctx, clientId);
    return { id: clientId, name: document.client_name ?? new URL(clientId).host, redirectUris: document.redirect_uris, origin: clientId };
  }
  const client = clientId.length <= 64 ? await ctx.prisma.oAuthClient.findUnique({ where: { id: clientId } }) : null;
  if (!client) throw new OAuthError('invalid_client', 'There is no client with this client_id here.', 401);
  const firstRedirect = client.redirectUris[0] ?? '';
  return {
    id: client.id,
    name: client.name,
    redirectUris: client.redirectUris,
    origin: URL.canParse(firstRedirect) ? new URL(firstRedirect).host : '',
  };
}
