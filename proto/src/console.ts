// NATS operations the console answers: people and their roles are the console's (users, memberships).
import { z } from 'zod';
import { defineRpc, nameOperations } from './rpc.js';

/** An owner or admin of the organization: who may approve an agent's destructive action in the console. */
export const approverSchema = z.object({
  user_id: z.string(),
  name: z.string(),
  email: z.string().describe('Stored lower-cased'),
  role: z.enum(['owner', 'admin']),
});
export type Approver = z.infer<typeof approverSchema>;

export const approverListSchema = z.object({ data: z.array(approverSchema) });

export const consoleRpc = nameOperations({
  /**
   * The organization's owners and admins (always the identity's organization), for the mcp service to e-mail
   * an approval request to. Served over NATS only: no REST route or MCP tool calls it, so an API key never
   * reads the people's addresses.
   */
  listApprovers: defineRpc('svc.console.approvers.list', z.object({}), approverListSchema, 'read'),
});
