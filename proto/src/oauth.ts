// The OAuth 2.1 contract between the console (the authorization server) and the gateway (which owns
// bearer credentials). A grant is what a person approved for one client in one organization: a scope and a
// monthly quota, like an API key. The gateway keeps the grant and mints its short-lived access tokens; the
// console keeps clients, authorization codes and refresh tokens, and asks the gateway for access tokens.
import { z } from 'zod';
import { timestampSchema } from './common.js';
import { grantRevocationReasons } from './gateway.js';
import { scopeSchema } from './identity.js';
import { idSchema } from './ids.js';
import { defineRpc, nameOperations } from './rpc.js';

/** Access tokens live one hour; a refresh token (the console's) thirty days. */
export const accessTokenLifetimeSeconds = 3_600;
export const refreshTokenLifetimeSeconds = 30 * 86_400;

/**
 * A client is named by the console's own id (`cli_…`, dynamic registration) or by the https URL of its
 * Client ID Metadata Document.
 */
export const oauthClientIdSchema = z.string().min(1).max(2048);

export const oauthGrantSchema = z
  .object({
    id: idSchema('grant'),
    object: z.literal('oauth_grant'),
    org_id: idSchema('org'),
    client_id: oauthClientIdSchema,
    client_name: z.string().describe('The name the client gave, as the person saw it on the consent page'),
    granted_by: idSchema('user').describe('The person who approved it'),
    scope: scopeSchema,
    resource: z
      .string()
      .nullable()
      .describe(
        'The MCP URL it was issued for (RFC 8707); its access tokens work there only. Null for a grant from before resources were kept',
      ),
    monthly_quota: z.number().int().nonnegative(),
    monthly_used: z.number().int().nonnegative().describe("This month's requests of all the grant's access tokens"),
    status: z.enum(['active', 'revoked']),
    created_at: timestampSchema,
    last_used_at: timestampSchema.nullable(),
    revoked_at: timestampSchema.nullable(),
  })
  .meta({ id: 'OAuthGrant' });
export type OAuthGrant = z.infer<typeof oauthGrantSchema>;

export const createGrantInputSchema = z.object({
  client_id: oauthClientIdSchema,
  client_name: z.string().trim().min(1).max(200),
  scope: scopeSchema,
  /** The MCP URL the client asked for (`resource`, RFC 8707), which the console checked: `<PUBLIC_BASE_URL>/api/mcp[/x/…][/readonly]`. */
  resource: z.string().min(1).max(2048),
  monthly_quota: z.number().int().min(1).max(1_000_000_000),
});

const grantIdInputSchema = z.object({ grant_id: idSchema('grant') });

export const issueAccessTokenInputSchema = grantIdInputSchema.extend({
  /**
   * The resource the token endpoint was asked for, when it named one: it must be the grant's (a grant from
   * before resources were kept takes it).
   */
  resource: z.string().min(1).max(2048).optional(),
});

export const endGrantInputSchema = grantIdInputSchema.extend({ reason: z.enum(grantRevocationReasons) });

export const revokeGrantsOfPersonInputSchema = z.object({
  granted_by: idSchema('user'),
  reason: z.enum(['member_removed', 'role_changed']),
  /** `read`: only the grants above read (a person who became a member); null: every grant of the person. */
  above: scopeSchema.extract(['read']).nullable(),
});

export const accessTokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
  scope: scopeSchema,
});
export type AccessToken = z.infer<typeof accessTokenSchema>;

/**
 * The gateway's grant operations, called by the console with the acting person's identity (`user_id` set;
 * the organization is always the identity's). `createGrant` refuses a scope above the identity's, and an
 * organization at its plan's number of bearer credentials (`key_limit_reached`: active grants count as keys).
 * `issueAccessToken` is asked as the grantor as they stand now (their role's scope): it refuses a revoked
 * grant (`revoked`), and ends one whose scope is above the grantor's now (`role_changed`). Revoking a grant
 * ends all its access tokens on every gateway replica from their next request.
 *
 * `endGrant` is the platform's own revocation (a reused code or refresh token, the client's RFC 7009
 * request), audited with its reason and never as a person: the identity need only be the organization's.
 * `revokeGrantsOfPerson` ends the grants a person made, when they leave the organization or become a member
 * (the grants above `read`), audited with actor `system` and the reason; it answers the grants it ended.
 */
export const oauthRpc = nameOperations({
  createGrant: defineRpc('svc.gateway.grants.create', createGrantInputSchema, oauthGrantSchema, 'read'),
  issueAccessToken: defineRpc('svc.gateway.grants.token', issueAccessTokenInputSchema, accessTokenSchema, 'read'),
  listGrants: defineRpc('svc.gateway.grants.list', z.object({}), z.object({ data: z.array(oauthGrantSchema) }), 'read'),
  revokeGrant: defineRpc('svc.gateway.grants.revoke', grantIdInputSchema, oauthGrantSchema, 'read-write'),
  endGrant: defineRpc('svc.gateway.grants.end', endGrantInputSchema, oauthGrantSchema, 'read'),
  revokeGrantsOfPerson: defineRpc(
    'svc.gateway.grants.revoke-person',
    revokeGrantsOfPersonInputSchema,
    z.object({ data: z.array(oauthGrantSchema) }),
    'read-write',
  ),
});
