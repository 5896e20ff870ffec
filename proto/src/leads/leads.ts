// Leads and their notes, the counts of the console's overview, and a lead's detail.
import { z } from 'zod';
import { e164Schema, metadataSchema, timestampSchema } from '../common.js';
import { idSchema } from '../ids.js';
import { listQuerySchema, pageSchema, twoWayListQuerySchema, twoWayPageSchema } from '../pagination.js';
import { callListItemSchema } from '../telephony.js';
import { enrollmentSchema } from './sequences.js';

/**
 * Booleans that arrive as query-string words (REST) or as JSON booleans (NATS). Only `true` and `false`
 * are accepted, so `?qualified_only=false` means false rather than "a non-empty string".
 */
const queryBooleanSchema = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((value) => value === true || value === 'true');

export const leadStatuses = ['new', 'contacted', 'qualified', 'unqualified', 'won', 'lost'] as const;
export const leadSources = ['api', 'mcp', 'inbound_call', 'web', 'import', 'referral', 'other'] as const;
export type LeadStatus = (typeof leadStatuses)[number];
export type LeadSource = (typeof leadSources)[number];

const tagSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[^,\s][^,]*$/, 'no commas');

export const leadSchema = z
  .object({
    id: idSchema('lead'),
    object: z.literal('lead'),
    workspace_id: z.string().nullable(),
    name: z.string().nullable(),
    phone: e164Schema.nullable(),
    email: z.string().nullable(),
    company: z.string().nullable(),
    status: z.enum(leadStatuses),
    qualified_at: timestampSchema.nullable().describe('When the lead was first qualified, by a call outcome or by hand'),
    source: z.enum(leadSources),
    tags: z.array(z.string()),
    owner: z.string().nullable().describe('Who on your team owns the lead: a name, email or user id of yours'),
    custom_fields: metadataSchema,
    last_contacted_at: timestampSchema.nullable(),
    next_action: z.string().nullable(),
    next_action_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Lead' });
export type Lead = z.infer<typeof leadSchema>;

/** The `data` of `lead.updated`: the lead after the change, and the fields the change named. */
export const leadUpdatedEventDataSchema = leadSchema.extend({ changed: z.array(z.string()) });

/** The `data` of `lead.qualified`: the lead, and the call that qualified it (null when qualified by hand). */
export const leadQualifiedEventDataSchema = leadSchema.extend({ call_id: idSchema('call').nullable() });

/** The `data` of `lead.deleted`: which lead, nothing of its personal data. */
export const leadDeletedEventDataSchema = z.object({ id: idSchema('lead'), object: z.literal('lead') });

export const leadNoteSchema = z
  .object({
    id: idSchema('note'),
    object: z.literal('lead_note'),
    lead_id: z.string(),
    body: z.string(),
    author: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({ id: 'LeadNote' });
export type LeadNote = z.infer<typeof leadNoteSchema>;

export const createLeadSchema = z
  .object({
    workspace_id: idSchema('workspace').nullable().optional(),
    name: z.string().trim().min(1).max(200).nullable().optional(),
    phone: e164Schema.nullable().optional(),
    email: z.email().max(320).nullable().optional(),
    company: z.string().trim().min(1).max(200).nullable().optional(),
    status: z.enum(leadStatuses).default('new'),
    source: z.enum(leadSources).default('api'),
    tags: z.array(tagSchema).max(20).default([]),
    owner: z.string().trim().min(1).max(200).nullable().optional(),
    custom_fields: metadataSchema.default({}),
    next_action: z.string().trim().min(1).max(500).nullable().optional(),
    next_action_at: timestampSchema.nullable().optional(),
    note: z.string().trim().min(1).max(10_000).optional().describe('A first note, stored as the lead’s first note'),
  })
  .strict();
export type CreateLead = z.infer<typeof createLeadSchema>;

export const updateLeadSchema = z
  .object({
    workspace_id: idSchema('workspace').nullable().optional(),
    name: z.string().trim().min(1).max(200).nullable().optional(),
    phone: e164Schema.nullable().optional(),
    email: z.email().max(320).nullable().optional(),
    company: z.string().trim().min(1).max(200).nullable().optional(),
    status: z.enum(leadStatuses).optional(),
    source: z.enum(leadSources).optional(),
    tags: z.array(tagSchema).max(20).optional(),
    owner: z.string().trim().min(1).max(200).nullable().optional(),
    custom_fields: metadataSchema.optional().describe('Replaces the custom fields; send the whole object'),
    next_action: z.string().trim().min(1).max(500).nullable().optional(),
    next_action_at: timestampSchema.nullable().optional(),
  })
  .strict();
export type UpdateLead = z.infer<typeof updateLeadSchema>;

export const listLeadsQuerySchema = twoWayListQuerySchema.extend({
  status: z.enum(leadStatuses).optional(),
  qualified: queryBooleanSchema
    .optional()
    .describe('true: only leads that were ever qualified (qualified_at set); false: only those never qualified'),
  workspace_id: idSchema('workspace').optional(),
  tag: tagSchema.optional(),
  owner: z.string().min(1).max(200).optional(),
  source: z.enum(leadSources).optional(),
  q: z.string().trim().min(1).max(200).optional().describe('Text to find in name, email, phone or company (case-insensitive)'),
  created_after: timestampSchema.optional(),
  created_before: timestampSchema.optional(),
});
export type ListLeadsQuery = z.infer<typeof listLeadsQuerySchema>;

export const recentLeadsQuerySchema = listQuerySchema.extend({
  since_hours: z.coerce.number().int().min(1).max(8760).default(168).describe('Leads created in the last this many hours'),
  qualified_only: queryBooleanSchema.default(false).describe('Only leads that have been qualified'),
  workspace_id: idSchema('workspace').optional(),
});
export type RecentLeadsQuery = z.infer<typeof recentLeadsQuerySchema>;

export const leadPageSchema = pageSchema(leadSchema).meta({ id: 'LeadPage' });

/** The leads list pages both ways (Newer and Older), as the console's table does. */
export const leadListPageSchema = twoWayPageSchema(leadSchema).meta({ id: 'LeadListPage' });

/** How many leads a period brought: for the console's overview. */
export const leadCountsQuerySchema = z
  .object({
    from: timestampSchema.describe('Start of the period (inclusive)'),
    to: timestampSchema.describe('End of the period (exclusive)'),
  })
  .refine((query) => Date.parse(query.from) < Date.parse(query.to), { message: 'from must be before to', path: ['to'] });
export type LeadCountsQuery = z.infer<typeof leadCountsQuerySchema>;

export const leadCountsSchema = z
  .object({
    object: z.literal('lead_counts'),
    from: timestampSchema,
    to: timestampSchema,
    created: z.number().int().nonnegative().describe('Leads created in the period'),
    qualified: z.number().int().nonnegative().describe('Leads first qualified in the period (`qualified_at`), whenever created'),
  })
  .meta({ id: 'LeadCounts' });
export type LeadCounts = z.infer<typeof leadCountsSchema>;

export const createLeadNoteSchema = z
  .object({
    body: z.string().trim().min(1).max(10_000),
    author: z.string().trim().min(1).max(200).nullable().optional(),
  })
  .strict();
export type CreateLeadNote = z.infer<typeof createLeadNoteSchema>;
export const listLeadNotesQuerySchema = listQuerySchema;
export const leadNotePageSchema = pageSchema(leadNoteSchema).meta({ id: 'LeadNotePage' });

// ── Lead detail (what the MCP get-lead tool shows) ───────────────────────────────────────────────────────

export const leadDetailSchema = leadSchema
  .extend({
    notes: z.array(leadNoteSchema).describe('The latest notes, newest first (at most 20)'),
    enrollments: z.array(enrollmentSchema).describe('Latest enrollments, newest first (at most 20)'),
    recent_calls: z
      .array(callListItemSchema)
      .nullable()
      .describe('Latest calls with this lead, newest first (at most 5); null when telephony did not answer'),
  })
  .meta({ id: 'LeadDetail' });
export type LeadDetail = z.infer<typeof leadDetailSchema>;
