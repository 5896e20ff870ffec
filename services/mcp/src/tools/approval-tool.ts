import { ApiError } from '@voice/kit';
import { type ApprovalTool, type McpToolset, pendingApprovalSchema } from '@voice/proto';
import { approvalActions } from '../domain/approval-actions.js';
import { requestApproval } from '../domain/approvals.js';
import { type ToolDefinition, toolAnnotations } from '../mcp/tool.js';

/**
 * A tool that never acts: it stores an approval, sends it to the organization's messaging app, and returns.
 * The only kind of tool that says `approval`; its scope is that of the operation it waits to run.
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
      `${options.description} Needs a person's approval: this tool does nothing by itself. It sends an Approve / Reject ` +
      "request to the organization's Telegram or Slack and returns {status: 'pending_approval', approval_id, expires_at}. " +
      'The action runs once, server side, with these exact arguments when someone taps Approve; follow it with service_get_approval.',
    operation,
    scope: operation.scope,
    approval: true,
    annotations: toolAnnotations(operation.scope, true, { idempotentHint: false, openWorldHint: options.openWorld }),
    // Unknown arguments are refused rather than silently dropped, as for every tool.
    input: input.strict(),
    output: pendingApprovalSchema,
    run: (args, context) => requestApproval(context.deps, context.identity, tool, args),
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
