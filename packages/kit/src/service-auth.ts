import { type Identity, type Scope, scopeAllows } from '@voice/proto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './errors.js';
import { verifyIdentity } from './identity.js';
import { urlPath } from './text.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller as the gateway signed it. Set on every route except probes and `config.public` ones. */
    identity: Identity;
  }
  interface FastifyContextConfig {
    /** A route that needs no gateway identity: inbound callbacks that carry their sender's own signature. */
    public?: boolean;
    /**
     * The scope a key needs for this route, by its effect: `read` for reading (recall and brand scoring
     * included), `read-write` for anything that creates, changes, sends or deletes. Published in the
     * OpenAPI document, where the gateway reads it.
     */
    scope?: Scope;
  }
}

const probePaths = new Set(['/healthz', '/readyz', '/metrics']);

/** The caller's identity, or a 401 if a route forgot it is public. */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw new ApiError('unauthenticated', 'This route needs a caller identity.');
  return request.identity;
}

/**
 * Refuses an identity whose scope does not cover `needed` (403 `forbidden_scope`). The gateway decides
 * scope first; services check again, over HTTP and NATS alike, so no path skips it.
 */
export function requireScope(identity: Identity, needed: Scope): void {
  if (!scopeAllows(identity.scope, needed)) {
    throw new ApiError('forbidden_scope', `This operation needs a ${needed} key; this key is ${identity.scope}.`);
  }
}

/**
 * Services accept only requests the gateway signed: a direct call with forged identity headers is 401.
 * A route's declared `config.scope` is enforced here too.
 */
export const serviceAuthPlugin = fp<{ secret: string }>(
  async (app: FastifyInstance, options) => {
    app.decorateRequest('identity', undefined as unknown as Identity);
    // Synchronous checks, so `done` hooks: no promise per request.
    app.addHook('onRequest', (request, _reply, done) => {
      try {
        if (!probePaths.has(urlPath(request.url)) && request.routeOptions.config.public !== true) {
          request.identity = verifyIdentity(request.headers, { method: request.method, url: request.url }, options.secret);
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    });
    app.addHook('preHandler', (request, _reply, done) => {
      const needed = request.routeOptions.config.scope;
      try {
        if (needed && request.routeOptions.config.public !== true) requireScope(identityOf(request), needed);
        done();
      } catch (error) {
        done(error as Error);
      }
    });
  },
  { name: 'voice-service-auth' },
);
