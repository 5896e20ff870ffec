import { ApiError } from '@voice/kit';
import {
  createInvoiceSchema,
  idempotencyKeySchema,
  idSchema,
  invoicePageSchema,
  invoiceSchema,
  leadsRpc,
  listInvoicesQuerySchema,
  listProjectsQuerySchema,
  projectPageSchema,
  projectSchema,
  updateInvoiceSchema,
  updateProjectSchema,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool, readHints } from '../mcp/tool.js';
import { approvalTool, changedFields } from './approval-tool.js';

const invoiceId = idSchema('invoice').describe('The invoice, e.g. from service_list_invoices');
const projectId = idSchema('project').describe('The project, e.g. from service_list_projects');

export const billingTools = [
  defineTool({
    name: 'service_list_invoices',
    title: 'List invoices',
    description:
      'Invoices by status (`draft`, `sent`, `paid`, `void`), lead or workspace, newest first, cursor-paged. Amounts in minor units.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listInvoicesQuerySchema,
    output: invoicePageSchema,
    run: (args, { call }) => call(leadsRpc.listInvoices, args),
  }),
  defineTool({
    name: 'service_get_invoice',
    title: 'Get an invoice',
    description: 'One invoice with its lines, taxes and totals (minor units).',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ invoice_id: invoiceId }),
    output: invoiceSchema,
    run: (args, { call }) => call(leadsRpc.getInvoice, { id: args.invoice_id }),
  }),
  defineTool({
    name: 'service_draft_invoice',
    title: 'Draft an invoice',
    description:
      'Creates a draft invoice for a lead: lines with quantity, unit amount (minor units) and tax rate (basis points). Sending it is service_send_invoice.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: createInvoiceSchema.extend({
      idempotency_key: idempotencyKeySchema
        .optional()
        .describe('Any unique string; a retry with the same key and arguments returns the first draft instead of a second one'),
    }),
    output: invoiceSchema,
    run: (args, { call }) => call(leadsRpc.draftInvoice, args),
  }),
  defineTool({
    name: 'service_update_invoice',
    title: 'Change a draft invoice',
    description:
      'Changes a draft invoice: lines (replaced whole), due date, memo, currency, customer. Only drafts change; others are a conflict.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: updateInvoiceSchema.extend({ invoice_id: invoiceId }),
    output: invoiceSchema,
    run: async ({ invoice_id, ...changes }, { call }) => {
      if (changedFields(changes, 'invoice_id').length === 0) {
        throw new ApiError('invalid_request', 'Give at least one field to change besides invoice_id.', { param: 'invoice_id' });
      }
      return call(leadsRpc.updateInvoice, { id: invoice_id, ...changes });
    },
  }),
  approvalTool('service_send_invoice', {
    title: 'Send an invoice',
    description: 'Sends an invoice to its customer; it can no longer be changed afterwards.',
    openWorld: true,
  }),
  defineTool({
    name: 'service_list_projects',
    title: 'List projects',
    description: 'Projects by status (`active`, `ready`, `delivered`), lead or workspace, newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listProjectsQuerySchema,
    output: projectPageSchema,
    run: (args, { call }) => call(leadsRpc.listProjects, args),
  }),
  defineTool({
    name: 'service_get_project',
    title: 'Get a project',
    description: 'One project with its deliverables, notes and due date.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ project_id: projectId }),
    output: projectSchema,
    run: (args, { call }) => call(leadsRpc.getProject, { id: args.project_id }),
  }),
  defineTool({
    name: 'service_update_project',
    title: 'Update a project',
    description:
      'Changes a project’s status (`active`/`ready`), notes, due date, name or deliverables. Delivery is service_deliver_project.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: updateProjectSchema.extend({ project_id: projectId }),
    output: projectSchema,
    run: async ({ project_id, ...changes }, { call }) => {
      if (changedFields(changes, 'project_id').length === 0) {
        throw new ApiError('invalid_request', 'Give at least one field to change besides project_id.', { param: 'project_id' });
      }
      return call(leadsRpc.updateProject, { id: project_id, ...changes });
    },
  }),
  approvalTool('service_deliver_project', {
    title: 'Deliver a project',
    description: 'Delivers a project to its customer and marks it delivered.',
    openWorld: true,
  }),
];
