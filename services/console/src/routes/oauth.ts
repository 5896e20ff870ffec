import { type Bus, clientAddress, FixedWindowLimiter, toApiError } from '@voice/kit';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type { ConsoleContext } from '../domain/context.js';
import { issuerOf, mcpResource } from '../domain/oauth-authorization.js';
import { registerClient, registrationSchema } from '../domain/oauth-clients.js';
import { OAuthError } from '../domain/oauth-errors.js';
import { redeemCode, redeemRefreshToken, revokeToken } from '../domain/oauth-tokens.js';
import { acceptForms, formOf } from '../http/forms.js';

type OAuthContext = ConsoleContext & { bus: Bus; redis: Redis };

/** RFC 8414 metadata: everything a client needs to find, given only the issuer. */
export function authorizationServerMetadata(publicBaseUrl: string) {
  const issuer = issuerOf(publicBaseUrl);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: ['read', 'read-write'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    resource_indicators_supported: true,
    protected_resources: [mcpResource(publicBaseUrl)],
    service_documentation: `${issuer}/docs`,
  };
}

/** RFC 6749 section 5.2 errors: `{ error, error_description }`, never cached. */
function sendOAuthError(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof OAuthError) {
    if (error.error === 'invalid_client') void reply.header('www-authenticate', 'Bearer error="invalid_client"');
    return reply.status(error.status).send({ error: error.error, error_description: error.description });
  }
  const apiError = toApiError(error);
  if (apiError.status < 500) return reply.status(400).send({ error: 'invalid_request', error_description: apiError.message });
  if (apiError.code === 'internal') reply.request.log.error({ err: error }, 'unhandled error');
  return reply
    .status(apiError.status)
    .headers(apiError.headers)
    .send({ error: apiError.status === 503 ? 'temporarily_unavailable' : 'server_error', error_description: 'Try again in a moment.' });
}

/**
 * The authorization server's endpoints outside /dashboard, reached through the gateway's public routes
 * `/oauth/*` and `/.well-known/oauth-authorization-server`. Clients call them without a session and
 * without cookies; the authorization page itself is /dashboard/oauth/authorize (routes/oauth-consent.ts),
 * where the session cookie is sent. Cross-origin access (CORS, preflights) for browser-based clients is
 * the gateway's (gateway/src/routes/oauth.ts): the console is reached only through it.
 */
export async function oauthRoutes(app: FastifyInstance, ctx: OAuthContext): Promise<void> {
  // Registration needs no credential and writes a row: a client address gets a few an hour (a client
  // registers once per install), so a script cannot fill the table.
  const registrations = new FixedWindowLimiter(ctx.redis, {
    prefix: ctx.env.REDIS_PREFIX,
    name: 'console-oauth-register',
    limit: ctx.env.OAUTH_REGISTRATIONS_PER_HOUR,
    windowSeconds: 3600,
  });
  app.get('/.well-known/oauth-authorization-server', async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=3600').send(authorizationServerMetadata(ctx.env.PUBLIC_BASE_URL)),
  );

  await app.register(
    async (oauth) => {
      await acceptForms(oauth);
      oauth.addHook('onSend', async (_request, reply, payload) => {
        void reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
        return payload;
      });
      oauth.setErrorHandler((error, _request, reply) => sendOAuthError(reply, error));

      // The session cookie is scoped to /dashboard, so the page that needs it lives there; the query is kept whole.
      oauth.get('/authorize', async (request, reply) => {
        const query = request.url.indexOf('?');
        return reply.redirect(`/dashboard/oauth/authorize${query >= 0 ? request.url.slice(query) : ''}`, 303);
      });

      oauth.post('/token', async (request, reply) => {
        const params = formOf(request.body);
        switch (params.grant_type) {
          case 'authorization_code':
            return reply.send(await redeemCode(ctx, params, request.id));
          case 'refresh_token':
            return reply.send(await redeemRefreshToken(ctx, params, request.id));
          default:
            throw new OAuthError('unsupported_grant_type', 'grant_type is authorization_code or refresh_token.');
        }
      });

      oauth.post('/revoke', async (request, reply) => {
        await revokeToken(ctx, formOf(request.body), request.id);
        return reply.status(200).send({});
      });

      oauth.post('/register', async (request, reply) => {
        const decision = await registrations.take(clientAddress(request.ip, undefined));
        if (!decision.allowed) {
          return reply
            .status(429)
            .header('retry-after', String(decision.resetInSeconds))
            .send({
              error: 'slow_down',
              error_description: `Too many registrations from this address; try again in ${decision.resetInSeconds} seconds.`,
            });
        }
        const input = registrationSchema.safeParse(request.body);
        if (!input.success) {
          const issue = input.error.issues[0];
          const error = issue?.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
          return reply.status(400).send({ error, error_description: issue?.message ?? 'The client metadata is not valid.' });
        }
        return reply.status(201).send(await registerClient(ctx, input.data));
      });
    },
    { prefix: '/oauth' },
  );
}
