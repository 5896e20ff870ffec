import {
  type ErrorCode,
  errorEnvelopeSchema,
  errorStatus,
  type HttpRoute,
  type Identity,
  idempotencyKeyHeadersSchema,
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
  /** Redis and its prefix, for operations that run once per idempotency key. */
  idempotency: IdempotencyDeps;
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
): void {
  for (const name of Object.keys(operations) as (keyof M & string)[]) {
    serveOperation(host, operations[name] as M[typeof name], handlers[name]);
  }
}

export function serveOperation<D extends RpcDefinition>(host: OperationHost, operation: D, handler: OperationHandler<D>): void {
  const successStatus = operation.http[0]?.status ?? 200;
  const run = async (input: Record<string, unknown>, identity: Identity): Promise<Outcome<z.input<D['output']>>> => {
    const settle = async (request: Record<string, unknown>) => {
      const result = await handler(request as z.output<D['input']>, identity);
      return isAnswered(result) ? { status: result.status, body: result.body } : { status: successStatus, body: result };
    };
    if (operation.idempotent === undefined) return { ...(await settle(input)), replayed: false };
    const { idempotency_key: key, ...request } = input;
    return idempotent(
      {
        redis: host.idempotency.redis,
        prefix: host.idempotency.env.REDIS_PREFIX,
        orgId: identity.org_id,
        operation: operation.idempotent,
        key: typeof key === 'string' ? key : undefined,
        fingerprint: request,
      },
      () => settle(request),
    );
  };

  host.bus.serve(operation, async (input, identity) => (await run(input as Record<string, unknown>, identity)).body);
  for (const route of operation.http) {
    host.app.route({
      method: route.method,
      url: route.path,
      schema: routeSchema(operation, route),
      config: { operation, ...(route.operationId ? { operationId: route.operationId } : {}) },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (route.comingSoon) throw new ApiError('coming_soon', `${route.method} ${route.path} is coming soon.`);
        const identity = identityOf(request);
        // Only what the route declares (and so validates) reaches the operation: a query or body it does
        // not take is ignored, as it was by hand-written routes, rather than overriding the path's `id`.
        const input = {
          ...(request.params as object),
          ...(route.query ? (request.query as object) : {}),
          ...(route.bodyField ? { [route.bodyField]: request.body } : route.body ? (request.body as object | undefined) : {}),
          ...route.fixed,
          ...(operation.idempotent ? { idempotency_key: idempotencyKeyOf(request) } : {}),
        };
        const outcome = await run(input, identity);
        if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
        return reply.status(outcome.status).send(outcome.body);
      },
    });
  }
}

/** The route's validation and OpenAPI description, all from its operation. */
export function routeSchema(operation: RpcDefinition, route: HttpRoute): Record<string, unknown> {
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
