import { ApiError } from '@voice/kit';
import {
  createLeadNoteSchema,
  createLeadSchema,
  idempotencyKeyArgumentSchema,
  idSchema,
  leadDetailSchema,
  leadNoteSchema,
  leadPageSchema,
  leadSchema,
  leadSources,
  leadsRpc,
  listLeadsQuerySchema,
  recentLeadsQuerySchema,
  updateLeadSchema,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool, readHints } from '../mcp/tool.js';
import { approvalTool, changedFields } from './approval-tool.js';

const leadId = idSchema('lead').describe('The lead, e.g. from service_list_leads');

export const leadTools = [
  defineTool({
    name: 'service_recent_leads',
    title: 'Recent leads',
    description:
      'Leads created in the last `since_hours` hours (default 168, one week), newest first. Set `qualified_only` to get only ' +
      'qualified leads, e.g. the qualified leads of the last 24 hours. Pages with `cursor`/`next_cursor`.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: recentLeadsQuerySchema.extend({
      qualified_only: z.boolean().default(false).describe('Only leads that have been qualified'),
    }),
    output: leadPageSchema,
    run: (args, { call }) => call(leadsRpc.recentLeads, args),
  }),
  defineTool({
    name: 'service_list_leads',
    title: 'List leads',
    description: 'Leads filtered by status, workspace, tag, owner, source, creation time or text (`q`), newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listLeadsQuerySchema,
    output: leadPageSchema,
    run: (args, { call }) => call(leadsRpc.listLeads, args),
  }),
  defineTool({
    name: 'service_get_lead',
    title: 'Get a lead',
    description: 'One lead with its latest notes, enrollments in follow-up sequences and last calls.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ lead_id: leadId }),
    output: leadDetailSchema,
    run: (args, { call }) => call(leadsRpc.getLead, { id: args.lead_id }),
  }),
  defineTool({
    name: 'service_create_lead',
    title: 'Create a lead',
    description: 'Creates a lead (name, phone, email, company, status, tags, owner, custom fields, an optional first note).',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: createLeadSchema.extend({
      source: z.enum(leadSources).default('mcp').describe('Where the lead came from'),
      idempotency_key: idempotencyKeyArgumentSchema,
    }),
    output: leadSchema,
    run: (args, { call }) => call(leadsRpc.createLead, args),
  }),
  defineTool({
    name: 'service_update_lead',
    title: 'Update a lead',
    description: 'Changes a lead’s status, tags, owner, contact details, next action or custom fields. Only the fields given change.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: updateLeadSchema.extend({ lead_id: leadId }),
    output: leadSchema,
    run: async ({ lead_id, ...changes }, { call }) => {
      if (changedFields(changes, 'lead_id').length === 0) {
        throw new ApiError('invalid_request', 'Give at least one field to change besides lead_id.', { param: 'lead_id' });
      }
      return call(leadsRpc.updateLead, { id: lead_id, ...changes });
    },
  }),
  defineTool({
    name: 'service_add_lead_note',
    title: 'Add a note to a lead',
    description: 'Appends a note to a lead’s history (notes are never edited or removed).',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: createLeadNoteSchema.extend({ lead_id: leadId }),
    output: leadNoteSchema,
    run: ({ lead_id, ...note }, { call }) => call(leadsRpc.addLeadNote, { id: lead_id, ...note }),
  }),
  approvalTool('service_delete_lead', {
    title: 'Delete a lead',
    description:
      'Deletes a lead and its personal data (notes, contact details); invoices and projects keep their amounts without the customer.',
    openWorld: false,
  }),
];
