import {
  type ErrorCode,
  errorEnvelopeSchema,
  errorStatus,
  type HttpRoute,
  type Identity,
  idempotencyKeyHeadersSchema,
  type PublicRoute,
  type RpcDefinition,
} from '@voice/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError } from './errors.js';
import type { HttpApp } from './http.js';
import { type IdempotencyDeps, idempotencyKeyOf, idempotent } from './idempotency.js';
import type { Bus } from './nats.js';
import { identityOf } from './service-auth.js';

/** A result with the REST status it answers with, where that depends on what happened (201 created, 200 already there). */
export interface Answered<T> {
  readonly answered: true;
  status: number;
  body: T;
}

export function answered<T>(status: number, body: T): Answered<T> {
  return { answered: true, status, body };
}

function isAnswered<T>(value: T | Answered<T>): value is Answered<T> {
  return typeof value === 'object' && value !== null && (value as Partial<Answered<T>>).answered === true;
}

/** The one function behind an operation, whichever transport asked: REST and NATS call it with the same input. */
export type OperationHandler<D extends RpcDefinition> = (
  input: z.output<D['input']>,
  identity: Identity,
) => Promise<z.input<D['output']> | Answered<z.input<D['output']>>>;

/** A handler for every operation of a map: a service that forgets one does not compile. */
export type OperationHandlers<M extends Record<string, RpcDefinition>> = { [K in keyof M]: OperationHandler<M[K]> };

/** Where operations are served: the service's HTTP app (its REST routes) and its bus (its NATS subjects). */
export interface OperationHost {
  app: HttpApp;
  bus: Bus;
  /** Redis and its prefix, for operations that run once per idempotency key (a service without any may have no Redis). */
  idempotency?: IdempotencyDeps;
}

/**
 * What an idempotent operation keeps under its key instead of its answer, where the answer must not rest in
 * Redis (a signing secret shown once): `keep` reduces the answer (to the id of what was made), `replay`
 * answers a repeated request from that.
 */
export interface Remembered<D extends RpcDefinition> {
  keep(body: z.input<D['output']>): unknown;
  replay(kept: unknown, identity: Identity): Promise<z.input<D['output']>>;
}

export interface ServeOptions<M extends Record<string, RpcDefinition>> {
  /** By operation, what an idempotent one keeps under its key, where not its answer. */
  remember?: { [K in keyof M]?: Remembered<M[K]> };
}

interface Outcome<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/**
 * Serves every operation of a map with its handler: on NATS (`bus.serve` checks signature, scope and input)
 * and at each REST route its definition declares. An idempotent operation runs once per key on both.
 */
export function serveOperations<M extends Record<string, RpcDefinition>>(
  host: OperationHost,
  operations: M,
  handlers: OperationHandlers<M>,
  options: ServeOptions<M> = {},
): void {
  for (const name of Object.keys(operations) as (keyof M & string)[]) {
    serveOperation(host, operations[name] as M[typeof name], handlers[name], options.remember?.[name]);
  }
}

export function serveOperation<D extends RpcDefinition>(
  host: OperationHost,
  operation: D,
  handler: OperationHandler<D>,
  remember?: Remembered<D>,
): void {
  const successStatus = operation.http[0]?.status ?? 200;
  const memory = host.idempotency;
  if (operation.idempotent !== undefined && memory === undefined) {
    throw new Error(`${operation.subject} is idempotent: serve it with the process's Redis (idempotency)`);
  }
  const run = async (input: Record<string, unknown>, identity: Identity): Promise<Outcome<z.input<D['output']>>> => {
    const settle = async (request: Record<string, unknown>) => {
      const result = await handler(request as z.output<D['input']>, identity);
      return isAnswered(result) ? { status: result.status, body: result.body } : { status: successStatus, body: result };
    };
    if (operation.idempotent === undefined || memory === undefined) return { ...(await settle(input)), replayed: false };
    const { idempotency_key: key, ...request } = input;
    const once = {
      redis: memory.redis,
      prefix: memory.env.REDIS_PREFIX,
      orgId: identity.org_id,
      operation: operation.idempotent,
      key: typeof key === 'string' ? key : undefined,
      fingerprint: request,
    };
    if (remember === undefined) return idempotent(once, () => settle(request));
    let fresh = undefined as Omit<Outcome<z.input<D['output']>>, 'replayed'> | undefined;
    const outcome = await idempotent(once, async () => {
      fresh = await settle(request);
      return { status: fresh.status, body: remember.keep(fresh.body) };
    });
    if (fresh !== undefined) return { ...fresh, replayed: false };
    return { status: outcome.status, body: await remember.replay(outcome.body, identity), replayed: true };
  };

  host.bus.serve(operation, async (input, identity) => (await run(input as Record<string, unknown>, identity)).body);
  for (const route of operation.http) {
    host.app.route({
      ...operationRouteOptions(operation, route),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (route.comingSoon) throw new ApiError('coming_soon', `${route.method} ${route.path} is coming soon.`);
        const identity = identityOf(request);
        // Only what the route declares (and so validates) reaches the operation: a query or body it does not
        // take is ignored, and no query or body field overrides a path parameter of the same name. The path's
        // parameters come first, as the NATS callers' input does, so both hash alike for idempotency.
        const params = request.params as Record<string, unknown>;
        const sent = {
          ...(route.query ? (request.query as object) : {}),
          ...(route.bodyField ? { [route.bodyField]: request.body } : route.body ? (request.body as object | undefined) : {}),
        };
        const input = {
          ...params,
          ...Object.fromEntries(Object.entries(sent).filter(([name]) => !Object.hasOwn(params, name))),
          ...route.fixed,
          ...(operation.idempotent ? { idempotency_key: idempotencyKeyOf(request) } : {}),
        };
        const outcome = await run(input, identity).catch((error: unknown) => {
          const renamed = error instanceof ApiError && error.param !== undefined ? route.errorParams?.[error.param] : undefined;
          throw renamed === undefined
            ? error
            : new ApiError((error as ApiError).code, (error as ApiError).message, { param: renamed, cause: error });
        });
        if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
        return reply.status(outcome.status).send(outcome.body);
      },
    });
  }
}

/** An operation's route as fastify takes it, but for the handler: where, what it validates and documents, its scope. */
function operationRouteOptions(operation: RpcDefinition, route: HttpRoute) {
  return {
    method: route.method,
    url: route.path,
    schema: routeSchema(operation, route),
    config: { operation, ...(route.operationId ? { operationId: route.operationId } : {}) },
  };
}

/** The route's validation and OpenAPI description, all from its operation. */
function routeSchema(operation: RpcDefinition, route: HttpRoute): Record<string, unknown> {
  const response: Record<number, z.ZodType> = route.comingSoon ? {} : { [route.status ?? 200]: operation.output };
  if (route.alsoStatus) response[route.alsoStatus] = operation.output;
  for (const code of operation.errors) response[errorStatus[code as ErrorCode]] = errorEnvelopeSchema;
  return {
    tags: [...route.tags],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(operation.idempotent ? { headers: idempotencyKeyHeadersSchema } : {}),
    ...(route.params ? { params: route.params } : {}),
    ...(route.query ? { querystring: route.query } : {}),
    ...(route.body ? { body: route.body } : {}),
    response,
  };
}

/** A public route's options, for `app.route({ ...publicRouteOptions(route), handler })`: no key, no scope. */
export function publicRouteOptions(route: PublicRoute) {
  return {
    method: route.method,
    url: route.path,
    schema: {
      tags: [...route.tags],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.query ? { querystring: route.query } : {}),
      ...(route.body ? { body: route.body } : {}),
      response: route.responses,
    },
    config: { public: true, operationId: route.operationId },
  };
}

/**
 * Registers every operation's REST routes and the public routes on an app that serves nothing, so that its
 * swagger document describes them exactly as the services do: how the public OpenAPI document is built
 * without a server. Their handlers are never called.
 */
export function describeRoutes(app: HttpApp, operations: readonly RpcDefinition[], publicRoutes: readonly PublicRoute[]): void {
  const unserved = async () => {
    throw new ApiError('internal', 'This app only describes routes.');
  };
  for (const operation of operations) {
    for (const route of operation.http) {
      app.route({ ...operationRouteOptions(operation, route), handler: unserved });
    }
  }
  for (const route of publicRoutes) app.route({ ...publicRouteOptions(route), handler: unserved });
}
