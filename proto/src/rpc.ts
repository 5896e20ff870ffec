import { z } from 'zod';
import { wireErrorSchema } from './errors.js';
import { identitySchema } from './identity.js';

/**
 * A NATS request/reply operation: its subject and the schemas of what goes in and comes out. Services
 * serve these with a queue group; the MCP service and other services call them. Subjects follow
 * `svc.<service>.<resource>.<verb>`.
 */
export interface RpcDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  subject: string;
  input: Input;
  output: Output;
}

export function defineRpc<Input extends z.ZodType, Output extends z.ZodType>(
  subject: string,
  input: Input,
  output: Output,
): RpcDefinition<Input, Output> {
  return { subject, input, output };
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
