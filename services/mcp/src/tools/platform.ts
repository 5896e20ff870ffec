import { approvalIdParamsSchema, approvalPageSchema, approvalSchema, gatewayRpc, listApprovalsQuerySchema } from '@voice/proto';
import { z } from 'zod';
import { defineLocalTool, defineTool } from '../mcp/tool.js';
import { findApproval, listApprovals, toApproval } from '../store/approvals.js';

export const platformTools = [
  defineLocalTool({
    name: 'service_list_approvals',
    toolset: 'platform',
    title: 'List approvals',
    description: 'Approvals of destructive actions, by status or tool.',
    scope: 'read',
    input: listApprovalsQuerySchema,
    output: approvalPageSchema,
    run: (args, { identity, deps }) => listApprovals(deps.prisma, identity.org_id, args, deps.now()),
  }),
  defineLocalTool({
    name: 'service_get_approval',
    toolset: 'platform',
    title: 'Get an approval',
    description: 'One approval: its status, who resolved it and when, and the action’s result or error once it ran.',
    scope: 'read',
    input: z.object({ approval_id: approvalIdParamsSchema.shape.id.describe('The approval, as a pending_approval result returned it') }),
    output: approvalSchema,
    run: async (args, { identity, deps }) => toApproval(await findApproval(deps.prisma, identity.org_id, args.approval_id), deps.now()),
  }),
  defineTool({
    name: 'service_get_usage',
    toolset: 'platform',
    title: 'Usage and limits',
    description: 'This key’s monthly quota and use, the organization’s daily requests against its plan limit, and the plan’s limits.',
    operation: gatewayRpc.getUsage,
  }),
  defineTool({
    name: 'service_list_audit_log',
    toolset: 'platform',
    title: 'List the audit log',
    description: 'The organization’s recent API calls (REST and MCP): method, path, status, key, latency.',
    operation: gatewayRpc.listAuditLog,
  }),
];
