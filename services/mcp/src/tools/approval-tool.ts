import { ApiError } from '@voice/kit';
import { type ApprovalTool, approvalOutcomeSchema, type McpToolset, pendingApprovalSchema } from '@voice/proto';
import { z } from 'zod';
import { approvalActions } from '../domain/approval-actions.js';
import { requestApproval } from '../domain/approval-requests.js';
import { type ToolDefinition, toolAnnotations } from '../mcp/tool.js';

/**
 * What an approval tool returns: `pending_approval` at once, or, as the result of its MCP task once a person
 * approved, `executed` with the action's result.
 */
const approvalToolOutput = z.discriminatedUnion('status', [pendingApprovalSchema, approvalOutcomeSchema]);

/**
 * A tool that never acts: it stores an approval (listed in the console, where a person may decide it), tells
 * the organization's linked chats, and returns.
 * The only kind of tool that says `approval`; its scope is that of the operation it waits to run. A client
 * that calls it as an MCP task gets the approval as the task, whose result is the outcome once decided.
 */
export function approvalTool(
  tool: ApprovalTool,
  options: { toolset: McpToolset; title: string; description: string; openWorld: boolean },
): ToolDefinition {
  const { operation, input } = approvalActions[tool];
  return {
    name: tool,
    toolset: options.toolset,
    title: options.title,
    description:
      // The server's instructions explain approvals once; each tool says only what the agent must not miss.
      `${options.description} Only asks a person (console, Telegram, Slack): returns pending_approval; runs once, as ` +
      'given, when approved. Outcome: service_get_approval, or call it as an MCP task.',
    operation,
    scope: operation.scope,
    approval: true,
    annotations: toolAnnotations(operation.scope, true, { idempotentHint: false, openWorldHint: options.openWorld }),
    // Unknown arguments are refused rather than silently dropped, as for every tool.
    input: input.strict(),
    output: approvalToolOutput,
    run: async (args, context) =>
      approvalToolOutput.parse(await requestApproval(context.deps, context.identity, tool, args, context.bindApprovalTo)),
    startTask: async (args, context) =>
      (await requestApproval(context.deps, context.identity, tool, args, context.bindApprovalTo)).approval_id,
  };
}

/** Fields that must be present for an update to mean anything. */
export function changedFields(args: Record<string, unknown>, idField: string): string[] {
  return Object.keys(args).filter((key) => key !== idField && args[key] !== undefined);
}

/** An update tool's arguments as its operation's input: the record's id as `id`, and at least one change. */
export function updateById<K extends string>(idField: K) {
  return <A extends Record<K, string>>(args: A): Omit<A, K> & { id: string } => {
    if (changedFields(args, idField).length === 0) {
      throw new ApiError('invalid_request', `Give at least one field to change besides ${idField}.`, { param: idField });
    }
    const { [idField]: id, ...changes } = args;
    return { ...(changes as Omit<A, K>), id };
  };
}
