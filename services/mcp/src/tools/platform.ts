import {
  approvalIdParamsSchema,
  approvalPageSchema,
  approvalSchema,
  auditPageSchema,
  gatewayRpc,
  listApprovalsQuerySchema,
  listAuditLogQuerySchema,
  usageSchema,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool, readHints } from '../mcp/tool.js';
import { findApproval, listApprovals, toApproval } from '../store/approvals.js';

export const platformTools = [
  defineTool({
    name: 'service_list_approvals',
    title: 'List approvals',
    description:
      'Approvals of destructive actions by status (`pending`, `approved`, `rejected`, `expired`, `executed`, `failed`) or tool, newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listApprovalsQuerySchema,
    output: approvalPageSchema,
    run: (args, { identity, deps }) => listApprovals(deps.prisma, identity.org_id, args, deps.now()),
  }),
  defineTool({
    name: 'service_get_approval',
    title: 'Get an approval',
    description: 'One approval: its status, who resolved it and when, and the action’s result or error once it ran.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ approval_id: approvalIdParamsSchema.shape.id.describe('The approval, as a pending_approval result returned it') }),
    output: approvalSchema,
    run: async (args, { identity, deps }) => toApproval(await findApproval(deps.prisma, identity.org_id, args.approval_id), deps.now()),
  }),
  defineTool({
    name: 'service_get_usage',
    title: 'Usage and limits',
    description: 'This key’s monthly quota and use, the organization’s daily requests against its plan limit, and the plan’s limits.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({}),
    output: usageSchema,
    run: (_args, { call }) => call(gatewayRpc.getUsage, {}),
  }),
  defineTool({
    name: 'service_list_audit_log',
    title: 'List the audit log',
    description: 'The organization’s recent API calls (REST and MCP): method, path, status, key, latency; newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listAuditLogQuerySchema,
    output: auditPageSchema,
    run: (args, { call }) => call(gatewayRpc.listAuditLog, args),
  }),
];
