import { createInvoiceSchema, idempotencyKeySchema, idSchema, leadsRpc, updateInvoiceSchema, updateProjectSchema } from '@voice/proto';
import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { approvalTool, updateById } from './approval-tool.js';

const invoiceId = idSchema('invoice').describe('The invoice, e.g. from service_list_invoices');
const projectId = idSchema('project').describe('The project, e.g. from service_list_projects');

export const billingTools = [
  defineTool({
    name: 'service_list_invoices',
    toolset: 'billing',
    title: 'List invoices',
    description: 'Invoices by status, lead or workspace. Amounts in minor units.',
    operation: leadsRpc.listInvoices,
  }),
  defineTool({
    name: 'service_get_invoice',
    toolset: 'billing',
    title: 'Get an invoice',
    description: 'One invoice with its lines, taxes and totals (minor units).',
    operation: leadsRpc.getInvoice,
    input: z.object({ invoice_id: invoiceId }),
    rpcInput: (args) => ({ id: args.invoice_id }),
  }),
  defineTool({
    name: 'service_draft_invoice',
    toolset: 'billing',
    title: 'Draft an invoice',
    description:
      'Creates a draft invoice for a lead: lines with quantity, unit amount (minor units) and tax rate (basis points). Sending it is service_send_invoice.',
    operation: leadsRpc.draftInvoice,
    input: createInvoiceSchema.extend({
      idempotency_key: idempotencyKeySchema
        .optional()
        .describe('Any unique string; a retry with the same key and arguments returns the first draft instead of a second one'),
    }),
  }),
  defineTool({
    name: 'service_update_invoice',
    toolset: 'billing',
    title: 'Change a draft invoice',
    description:
      'Changes a draft invoice: lines (replaced whole), due date, memo, currency, customer. Only drafts change; others are a conflict.',
    operation: leadsRpc.updateInvoice,
    annotations: { idempotentHint: true },
    input: updateInvoiceSchema.extend({ invoice_id: invoiceId }),
    rpcInput: updateById('invoice_id'),
  }),
  approvalTool('service_send_invoice', {
    toolset: 'billing',
    title: 'Send an invoice',
    description: 'Sends an invoice to its customer; it can no longer be changed afterwards.',
    openWorld: true,
  }),
  defineTool({
    name: 'service_list_projects',
    toolset: 'billing',
    title: 'List projects',
    description: 'Projects by status, lead or workspace.',
    operation: leadsRpc.listProjects,
  }),
  defineTool({
    name: 'service_get_project',
    toolset: 'billing',
    title: 'Get a project',
    description: 'One project with its deliverables, notes and due date.',
    operation: leadsRpc.getProject,
    input: z.object({ project_id: projectId }),
    rpcInput: (args) => ({ id: args.project_id }),
  }),
  defineTool({
    name: 'service_update_project',
    toolset: 'billing',
    title: 'Update a project',
    description:
      'Changes a project’s status (`active`/`ready`), notes, due date, name or deliverables. Delivery is service_deliver_project.',
    operation: leadsRpc.updateProject,
    annotations: { idempotentHint: true },
    input: updateProjectSchema.extend({ project_id: projectId }),
    rpcInput: updateById('project_id'),
  }),
  approvalTool('service_deliver_project', {
    toolset: 'billing',
    title: 'Deliver a project',
    description: 'Delivers a project to its customer and marks it delivered.',
    openWorld: true,
  }),
];
