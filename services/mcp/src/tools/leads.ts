import {
  createLeadNoteSchema,
  createLeadSchema,
  idempotencyKeyArgumentSchema,
  idSchema,
  leadSources,
  leadsRpc,
  listLeadsQuerySchema,
  recentLeadsQuerySchema,
  updateLeadSchema,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { approvalTool, updateById } from './approval-tool.js';

const leadId = idSchema('lead').describe('The lead, e.g. from service_list_leads');

export const leadTools = [
  defineTool({
    name: 'service_recent_leads',
    toolset: 'leads',
    title: 'Recent leads',
    // The example that followed ("the qualified leads of the last 24 hours") only restated the two arguments;
    // its characters went to the approvals' `livemode` under the tools/list budget.
    description: 'Leads created in the last `since_hours` hours (default 168, one week). With `qualified_only`, only qualified leads.',
    operation: leadsRpc.recentLeads,
    input: recentLeadsQuerySchema.extend({
      qualified_only: z.boolean().default(false).describe('Only leads that have been qualified'),
    }),
  }),
  defineTool({
    name: 'service_list_leads',
    toolset: 'leads',
    title: 'List leads',
    description: 'Leads filtered by status, workspace, tag, owner, source, creation time or text (`q`).',
    operation: leadsRpc.listLeads,
    // The console's "qualified" filter stays out of the tool: agents ask `service_recent_leads` for
    // qualified leads, and the catalogue keeps within its size budget.
    input: listLeadsQuerySchema.omit({ qualified: true }),
  }),
  defineTool({
    name: 'service_get_lead',
    toolset: 'leads',
    title: 'Get a lead',
    description: 'One lead with its latest notes, enrollments in follow-up sequences and last calls.',
    operation: leadsRpc.getLead,
    input: z.object({ lead_id: leadId }),
    rpcInput: (args) => ({ id: args.lead_id }),
  }),
  defineTool({
    name: 'service_create_lead',
    toolset: 'leads',
    title: 'Create a lead',
    description: 'Creates a lead (name, phone, email, company, status, tags, owner, custom fields, an optional first note).',
    operation: leadsRpc.createLead,
    input: createLeadSchema.extend({
      source: z.enum(leadSources).default('mcp').describe('Where the lead came from'),
      idempotency_key: idempotencyKeyArgumentSchema,
    }),
  }),
  defineTool({
    name: 'service_update_lead',
    toolset: 'leads',
    title: 'Update a lead',
    description: 'Changes a lead’s status, tags, owner, contact details, next action or custom fields. Only the fields given change.',
    operation: leadsRpc.updateLead,
    annotations: { idempotentHint: true },
    input: updateLeadSchema.extend({ lead_id: leadId }),
    rpcInput: updateById('lead_id'),
  }),
  defineTool({
    name: 'service_add_lead_note',
    toolset: 'leads',
    title: 'Add a note to a lead',
    description: 'Appends a note to a lead’s history (notes are never edited or removed).',
    operation: leadsRpc.addLeadNote,
    input: createLeadNoteSchema.extend({ lead_id: leadId }),
    rpcInput: ({ lead_id, ...note }) => ({ id: lead_id, ...note }),
  }),
  approvalTool('service_delete_lead', {
    toolset: 'leads',
    title: 'Delete a lead',
    description:
      'Deletes a lead and its personal data (notes, contact details); invoices and projects keep their amounts without the customer.',
    openWorld: false,
  }),
];
