import { z } from 'zod';
import { type ErrorCode, wireErrorSchema } from './errors.js';
import { identitySchema, type Scope } from './identity.js';

/**
 * One operation of the platform, and the single place its contract is stated: its NATS subject, the
 * schemas of what goes in and comes out, the scope it needs by its effect (reads `read`, anything that
 * changes data `read-write`), and whether an agent may only ask a person to approve it. Services serve
 * these with a queue group (`Bus.serve` enforces the scope); REST routes and MCP tools take their scope
 * from here. Subjects follow `svc.<service>.<resource>.<verb>`.
 */
export interface RpcDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  subject: string;
  input: Input;
  output: Output;
  scope: Scope;
  /** An MCP agent cannot run it directly: its tool only requests a person's approval (MCP-TOOLS.md). */
  approval: boolean;
  /**
   * The operation's name: its key in the service's map (`listCalls`), set by `nameOperations`. The
   * `operationId` of the REST route that performs it, so a generated client's methods are named after it.
   */
  name?: string;
  /** Where the operation is on the REST API, if it is (a second route of one operation is a second entry). */
  http: readonly HttpRoute[];
  /**
   * Runs once per idempotency key (the `Idempotency-Key` header over REST, `idempotency_key` over NATS),
   * remembered under this name, on every transport: the same key and input answer the first result again.
   */
  idempotent?: string;
  /** The error codes (from the one table in errors.ts) the operation answers besides the gateway's own. */
  errors: readonly ErrorCode[];
  /**
   * A test helper (`/api/v1/test_helpers/…`, MCP's `testing` toolset): it exists for test credentials only,
   * and answers a live one 404 `not_found`, on every transport (mode.ts).
   */
  testOnly: boolean;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * An operation's REST route. The operation's input is the route's path parameters, query and body merged
 * (plus `fixed`), so a service writes one handler for REST and NATS; the schemas here are the ones the
 * route validates and the OpenAPI document publishes.
 */
export interface HttpRoute {
  method: HttpMethod;
  /** In fastify's form: `/api/v1/phone/calls/:id`. */
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * Where the path's parameters take other names in the input (`/sequences/:id` is `sequence_id`): an error
   * naming the input's field names the route's parameter over REST, `{ sequence_id: 'id' }`.
   */
  errorParams?: Record<string, string>;
  /** The input field the body goes in, where the operation takes it whole (`{ id, changes }`); otherwise its fields are the input's. */
  bodyField?: string;
  /** The success status: 200 unless stated. */
  status?: 200 | 201 | 202;
  /** Another success status the operation may answer with the same record (an entry that already existed). */
  alsoStatus?: 200 | 201;
  /** Input the route sets itself, not the caller: `{ source: 'api' }`. */
  fixed?: Record<string, unknown>;
  /** Not available on this route yet: it answers 501 `coming_soon`, the only answer its document lists. */
  comingSoon?: true;
  /** The route's `operationId` where it is a second route of its operation (the first takes the operation's name). */
  operationId?: string;
}

/**
 * A documented REST route that is not an operation: public, answering anyone without a key, so it has no
 * organization, scope or NATS subject (the public marketing audit). Declared here for the same document.
 */
export interface PublicRoute extends Pick<HttpRoute, 'method' | 'path' | 'summary' | 'description' | 'tags' | 'query' | 'body'> {
  operationId: string;
  responses: Record<number, z.ZodType>;
}

export interface RpcOptions {
  approval?: boolean;
  http?: HttpRoute | readonly HttpRoute[];
  idempotent?: string;
  errors?: readonly ErrorCode[];
  testOnly?: true;
}

export function defineRpc<Input extends z.ZodType, Output extends z.ZodType>(
  subject: string,
  input: Input,
  output: Output,
  scope: Scope,
  options: RpcOptions = {},
): RpcDefinition<Input, Output> {
  const http = options.http === undefined ? [] : Array.isArray(options.http) ? options.http : [options.http as HttpRoute];
  return {
    subject,
    input,
    output,
    scope,
    approval: options.approval ?? false,
    http,
    ...(options.idempotent ? { idempotent: options.idempotent } : {}),
    errors: options.errors ?? [],
    testOnly: options.testOnly ?? false,
  };
}

/**
 * Names each operation of a service's map after its key (`telephonyRpc.listCalls` is `listCalls`), so the
 * name is stated once, where the operation is declared. Returns the same map.
 */
export function nameOperations<T extends Record<string, RpcDefinition>>(operations: T): T {
  for (const [name, operation] of Object.entries(operations)) operation.name = name;
  return operations;
}

export type RpcInput<D extends RpcDefinition> = z.input<D['input']>;
export type RpcOutput<D extends RpcDefinition> = z.output<D['output']>;

/** What travels on the wire: the caller's identity always rides along, so every handler is tenant-scoped. */
export const rpcRequestSchema = z.object({
  identity: identitySchema,
  input: z.unknown(),
});

export const rpcReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: wireErrorSchema }),
]);
export type RpcReply = z.infer<typeof rpcReplySchema>;
