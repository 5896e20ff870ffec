import { type Identity, isTestOrg, type RpcDefinition, type Scope, scopeAllows } from '@voice/proto';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
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
     * The operation this route performs: the route needs the scope the operation declares. Published in
     * the OpenAPI document as `x-scope`, where the gateway checks it against its own rule.
     */
    operation?: RpcDefinition;
    /**
     * Only for a route with no operation in `proto/` (the MCP endpoint, webhook
     * endpoints' writes): the scope a key needs, by its effect — `read` for reading (recall and brand
     * scoring included), `read-write` for anything that creates, changes, sends or deletes.
     */
    scope?: Scope;
    /**
     * The route's `operationId` in the OpenAPI document, only where its operation cannot give it: a
     * documented route with no operation in `proto/`, or a second route of one. Otherwise it is the
     * operation's name (`listCalls`).
     */
    operationId?: string;
  }
}

/** The scope a route needs: its operation's, or its own for a route without one. */
export function routeScope(config: Pick<FastifyContextConfig, 'operation' | 'scope'> | undefined): Scope | undefined {
  return config?.operation?.scope ?? config?.scope;
}

/** The route's `operationId`: the one it states, or its operation's name. */
export function routeOperationId(config: Pick<FastifyContextConfig, 'operation' | 'operationId'> | undefined): string | undefined {
  return config?.operationId ?? config?.operation?.name;
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
 * Refuses a test helper to a live credential with 404, as if it did not exist: it is not a route of the live
 * API (proto's `RpcDefinition.testOnly`). Checked with the scope, over HTTP and NATS alike.
 */
export function requireMode(identity: Identity, operation: Pick<RpcDefinition, 'testOnly'>): void {
  if (operation.testOnly && !isTestOrg(identity.org_id)) {
    throw new ApiError('not_found', 'Test helpers exist in test mode only: call them with a test key (vk_test_…).');
  }
}

/**
 * Services accept only requests the gateway signed: a direct call with forged identity headers is 401.
 * A route's scope (its operation's, or its own `config.scope`) is enforced here too.
 */
export const serviceAuthPlugin = fp<{ secret: string }>(
  async (app: FastifyInstance, options) => {
    app.decorateRequest('identity', undefined as unknown as Identity);
    // One source for a scope: a route that names its operation must not restate (and so may not contradict) it.
    app.addHook('onRoute', (route) => {
      if (route.config?.operation && route.config.scope) {
        throw new Error(`${route.method} ${route.url} names operation ${route.config.operation.subject}; drop its config.scope`);
      }
    });
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
      const needed = routeScope(request.routeOptions.config);
      try {
        if (needed && request.routeOptions.config.public !== true) requireScope(identityOf(request), needed);
        const operation = request.routeOptions.config.operation;
        if (operation) requireMode(identityOf(request), operation);
        done();
      } catch (error) {
        done(error as Error);
      }
    });
  },
  { name: 'voice-service-auth' },
);
