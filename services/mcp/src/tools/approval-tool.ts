import { type ApprovalTool, pendingApprovalSchema } from '@voice/proto';
import { approvalActions } from '../domain/approval-actions.js';
import { requestApproval } from '../domain/approvals.js';
import { defineTool, type ToolDefinition } from '../mcp/tool.js';

/** A tool that never acts: it stores an approval, sends it to the organization's messaging app, and returns. */
export function approvalTool(tool: ApprovalTool, options: { title: string; description: string; openWorld: boolean }): ToolDefinition {
  return defineTool({
    name: tool,
    title: options.title,
    description:
      `${options.description} Needs a person's approval: this tool does nothing by itself. It sends an Approve / Reject ` +
      "request to the organization's Telegram or Slack and returns {status: 'pending_approval', approval_id, expires_at}. " +
      'The action runs once, server side, with these exact arguments when someone taps Approve; follow it with service_get_approval.',
    scope: 'read-write',
    approval: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: options.openWorld },
    input: approvalActions[tool].input,
    output: pendingApprovalSchema,
    run: (args, context) => requestApproval(context.deps, context.identity, tool, args),
  });
}

/** Fields that must be present for an update to mean anything. */
export function changedFields(args: Record<string, unknown>, idField: string): string[] {
  return Object.keys(args).filter((key) => key !== idField && args[key] !== undefined);
}
