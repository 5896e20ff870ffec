import { z } from 'zod';
import { wireErrorSchema } from './errors.js';
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
}

export function defineRpc<Input extends z.ZodType, Output extends z.ZodType>(
  subject: string,
  input: Input,
  output: Output,
  scope: Scope,
  options: { approval?: boolean } = {},
): RpcDefinition<Input, Output> {
  return { subject, input, output, scope, approval: options.approval ?? false };
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
