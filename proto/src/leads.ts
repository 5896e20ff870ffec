// Records, request schemas and NATS operations of the leads service: workspaces, themes, leads (and their
// notes), sequences and enrollments, invoices and projects.
import { z } from 'zod';
import {
  currencySchema,
  deletedSchema,
  e164Schema,
  idempotencyKeySchema,
  metadataSchema,
  supportedYear,
  timestampSchema,
} from './common.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema, twoWayListQuerySchema, twoWayPageSchema } from './pagination.js';
import { defineRpc, nameOperations } from './rpc.js';
import { callListItemSchema } from './telephony.js';

// ── Shared pieces ────────────────────────────────────────────────────────────────────────────────────────

/** A calendar date without a time, e.g. an invoice's due date. */
export const calendarDateSchema = z.iso.date().refine(supportedYear, 'must be a date from 1970 on').describe('Calendar date, YYYY-MM-DD');

export const ianaTimezoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine((value) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone, e.g. America/New_York')
  .describe('IANA time zone, e.g. America/New_York');

export const bcp47LocaleSchema = z
  .string()
  .min(2)
  .max(35)
  .refine((value) => {
    try {
      return Intl.getCanonicalLocales(value).length === 1;
    } catch {
      return false;
    }
  }, 'must be a BCP 47 language tag, e.g. en-US')
  .describe('BCP 47 language tag, e.g. en-US');

const hexColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color, e.g. #1A2B3C')
  .describe('Hex color, #RRGGBB');

/**
 * Booleans that arrive as query-string words (REST) or as JSON booleans (NATS). Only `true` and `false`
 * are accepted, so `?qualified_only=false` means false rather than "a non-empty string".
 */
const queryBooleanSchema = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((value) => value === true || value === 'true');

// ── Workspaces ───────────────────────────────────────────────────────────────────────────────────────────

export const workspaceSchema = z
  .object({
    id: idSchema('workspace'),
    object: z.literal('workspace'),
    name: z.string(),
    slug: z.string(),
    timezone: z.string(),
    locale: z.string(),
    phone_numbers: z.array(e164Schema),
    default_theme_id: z.string().nullable(),
    metadata: metadataSchema,
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Workspace' });
export type Workspace = z.infer<typeof workspaceSchema>;

const slugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens, e.g. north-office');

export const createWorkspaceSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    slug: slugSchema.optional().describe('Unique within the organization; derived from the name when omitted.'),
    timezone: ianaTimezoneSchema.default('UTC'),
    locale: bcp47LocaleSchema.default('en-US'),
    phone_numbers: z.array(e164Schema).max(20).default([]),
    default_theme_id: idSchema('theme').nullable().optional(),
    metadata: metadataSchema.default({}),
  })
  .strict();
export type CreateWorkspace = z.infer<typeof createWorkspaceSchema>;

export const updateWorkspaceSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    slug: slugSchema.optional(),
    timezone: ianaTimezoneSchema.optional(),
    locale: bcp47LocaleSchema.optional(),
    phone_numbers: z.array(e164Schema).max(20).optional(),
    default_theme_id: idSchema('theme').nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type UpdateWorkspace = z.infer<typeof updateWorkspaceSchema>;

export const listWorkspacesQuerySchema = listQuerySchema;
export type ListWorkspacesQuery = z.infer<typeof listWorkspacesQuerySchema>;
export const workspacePageSchema = pageSchema(workspaceSchema).meta({ id: 'WorkspacePage' });

// ── Themes ───────────────────────────────────────────────────────────────────────────────────────────────

export const themeTones = ['friendly', 'professional', 'casual', 'formal', 'enthusiastic', 'empathetic'] as const;

export const themeColorsSchema = z
  .object({
    primary: hexColorSchema,
    accent: hexColorSchema.optional(),
    background: hexColorSchema.optional(),
    text: hexColorSchema.optional(),
  })
  .strict();

export const themeSchema = z
  .object({
    id: idSchema('theme'),
    object: z.literal('theme'),
    name: z.string(),
    voice: z.string().describe('Voice the agent speaks with, as the voice provider names it'),
    greeting: z.string(),
    tone: z.enum(themeTones),
    colors: themeColorsSchema,
    logo_url: z.string().nullable(),
    is_default: z.boolean().describe('The organization default, used by workspaces without a theme of their own; at most one'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Theme' });
export type Theme = z.infer<typeof themeSchema>;

const logoUrlSchema = z
  .url({ protocol: /^https$/ })
  .max(2048)
  .describe('https URL of the logo');

export const createThemeSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    voice: z.string().trim().min(1).max(100).default('alloy'),
    greeting: z.string().trim().min(1).max(1000),
    tone: z.enum(themeTones).default('friendly'),
    colors: themeColorsSchema.default({ primary: '#1F6FEB' }),
    logo_url: logoUrlSchema.nullable().optional(),
    is_default: z.boolean().default(false),
  })
  .strict();
export type CreateTheme = z.infer<typeof createThemeSchema>;

export const updateThemeSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    voice: z.string().trim().min(1).max(100).optional(),
    greeting: z.string().trim().min(1).max(1000).optional(),
    tone: z.enum(themeTones).optional(),
    colors: themeColorsSchema.optional(),
    logo_url: logoUrlSchema.nullable().optional(),
    is_default: z.boolean().optional(),
  })
  .strict();
export type UpdateTheme = z.infer<typeof updateThemeSchema>;

export const listThemesQuerySchema = listQuerySchema;
export type ListThemesQuery = z.infer<typeof listThemesQuerySchema>;
export const themePageSchema = pageSchema(themeSchema).meta({ id: 'ThemePage' });

export const applyThemeSchema = z.object({ workspace_id: idSchema('workspace') }).strict();

// ── Leads ────────────────────────────────────────────────────────────────────────────────────────────────

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

// ── Sequences and enrollments ────────────────────────────────────────────────────────────────────────────

const maxDelaySeconds = 90 * 24 * 60 * 60;
const delaySecondsSchema = z
  .number()
  .int()
  .min(0)
  .max(maxDelaySeconds)
  .describe('Seconds to wait after the previous step (or the enrollment) before this step runs');

/** Passed on to the call or message record, beside the enrollment, sequence and step the platform adds. */
const stepMetadataSchema = metadataSchema
  .refine((value) => Object.keys(value).length <= 40, 'at most 40 metadata keys on a step')
  .optional();

export const sequenceStepSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), delay_seconds: delaySecondsSchema.default(0), metadata: stepMetadataSchema }).strict(),
  z
    .object({
      type: z.literal('sms'),
      delay_seconds: delaySecondsSchema.default(0),
      metadata: stepMetadataSchema,
      body: z
        .string()
        .min(1)
        .max(1600)
        .describe('Message text; {{name}}, {{first_name}} and {{company}} are replaced with the lead’s values'),
    })
    .strict(),
  z.object({ type: z.literal('wait'), delay_seconds: delaySecondsSchema.min(1) }).strict(),
]);
export type SequenceStep = z.infer<typeof sequenceStepSchema>;

export const sequenceSchema = z
  .object({
    id: idSchema('sequence'),
    object: z.literal('sequence'),
    name: z.string(),
    description: z.string().nullable(),
    workspace_id: z.string().nullable(),
    steps: z.array(sequenceStepSchema),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Sequence' });
export type Sequence = z.infer<typeof sequenceSchema>;

export const createSequenceSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().trim().max(2000).nullable().optional(),
    workspace_id: idSchema('workspace').nullable().optional(),
    steps: z.array(sequenceStepSchema).min(1).max(20),
  })
  .strict();
export type CreateSequence = z.infer<typeof createSequenceSchema>;

export const updateSequenceSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    workspace_id: idSchema('workspace').nullable().optional(),
    steps: z
      .array(sequenceStepSchema)
      .min(1)
      .max(20)
      .optional()
      .describe('Replaces the steps; running enrollments keep the steps they started with'),
  })
  .strict();
export type UpdateSequence = z.infer<typeof updateSequenceSchema>;

export const listSequencesQuerySchema = listQuerySchema.extend({ workspace_id: idSchema('workspace').optional() });
export type ListSequencesQuery = z.infer<typeof listSequencesQuerySchema>;
export const sequencePageSchema = pageSchema(sequenceSchema).meta({ id: 'SequencePage' });

export const enrollmentStatuses = ['active', 'completed', 'stopped'] as const;
export const stepOutcomes = ['done', 'skipped', 'failed'] as const;

export const enrollmentStepResultSchema = z.object({
  step: z.number().int().nonnegative(),
  type: z.enum(['call', 'sms', 'wait']),
  outcome: z.enum(stepOutcomes),
  reason: z.string().nullable().describe('Why a step was skipped or failed, e.g. dnc_blocked or no_phone'),
  call_id: z.string().nullable(),
  sms_id: z.string().nullable(),
  at: timestampSchema,
});
export type EnrollmentStepResult = z.infer<typeof enrollmentStepResultSchema>;

export const enrollmentSchema = z
  .object({
    id: idSchema('enrollment'),
    object: z.literal('enrollment'),
    sequence_id: z.string(),
    lead_id: z.string(),
    status: z.enum(enrollmentStatuses),
    steps: z.array(sequenceStepSchema).describe('The sequence’s steps when the lead was enrolled; later edits do not change them'),
    current_step: z.number().int().nonnegative().describe('Index of the next step to run; the step count once completed'),
    next_step_at: timestampSchema.nullable(),
    stopped_reason: z.string().nullable(),
    history: z.array(enrollmentStepResultSchema),
    started_at: timestampSchema,
    completed_at: timestampSchema.nullable(),
    stopped_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Enrollment' });
export type Enrollment = z.infer<typeof enrollmentSchema>;

export const enrollLeadsSchema = z
  .object({
    lead_ids: z
      .array(idSchema('lead'))
      .min(1)
      .max(100)
      .describe('Leads to enroll; a lead already active in the sequence keeps its enrollment'),
  })
  .strict();
export const enrollmentListSchema = z.object({ data: z.array(enrollmentSchema) }).meta({ id: 'EnrollmentList' });

export const listEnrollmentsQuerySchema = listQuerySchema.extend({
  lead_id: idSchema('lead').optional(),
  status: z.enum(enrollmentStatuses).optional(),
});
export type ListEnrollmentsQuery = z.infer<typeof listEnrollmentsQuerySchema>;
export const enrollmentPageSchema = pageSchema(enrollmentSchema).meta({ id: 'EnrollmentPage' });

export const stopEnrollmentSchema = z
  .object({
    reason: z.string().trim().min(1).max(500).optional().describe('Recorded as stopped_reason; "unenrolled" when omitted'),
  })
  .strict();

// ── Invoices ─────────────────────────────────────────────────────────────────────────────────────────────

export const invoiceStatuses = ['draft', 'sent', 'paid', 'void'] as const;

/** Quantities carry at most three decimals (1.5 hours, 0.125 kg), so they are exact in thousandths. */
export const invoiceQuantitySchema = z
  .number()
  .positive()
  .max(1_000_000)
  .refine((value) => Math.abs(value * 1000 - Math.round(value * 1000)) < 1e-6, 'at most 3 decimal places');

export const invoiceLineInputSchema = z
  .object({
    description: z.string().trim().min(1).max(500),
    quantity: invoiceQuantitySchema.default(1),
    unit_amount: z.number().int().min(0).max(1_000_000_000_000).describe('Price of one unit in minor units (cents)'),
    tax_rate_bps: z.number().int().min(0).max(10_000).default(0).describe('Tax rate in basis points: 825 = 8.25%'),
  })
  .strict();
export type InvoiceLineInput = z.infer<typeof invoiceLineInputSchema>;

export const invoiceLineSchema = invoiceLineInputSchema.extend({
  subtotal: z.number().int().describe('quantity × unit_amount, rounded half-up to a minor unit'),
  tax: z.number().int().describe('subtotal × tax_rate_bps / 10000, rounded half-up to a minor unit'),
  total: z.number().int().describe('subtotal + tax'),
});
export type InvoiceLine = z.infer<typeof invoiceLineSchema>;

export const invoiceSchema = z
  .object({
    id: idSchema('invoice'),
    object: z.literal('invoice'),
    lead_id: z.string().nullable().describe('The customer; null once the lead was deleted with its personal data'),
    workspace_id: z.string().nullable(),
    status: z.enum(invoiceStatuses),
    currency: currencySchema,
    lines: z.array(invoiceLineSchema),
    subtotal: z.number().int(),
    tax: z.number().int(),
    total: z.number().int().describe('Sum of the lines’ totals, in minor units'),
    due_date: calendarDateSchema.nullable(),
    memo: z.string().nullable(),
    metadata: metadataSchema,
    sent_at: timestampSchema.nullable(),
    paid_at: timestampSchema.nullable(),
    voided_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Invoice' });
export type Invoice = z.infer<typeof invoiceSchema>;

export const createInvoiceSchema = z
  .object({
    lead_id: idSchema('lead'),
    workspace_id: idSchema('workspace').nullable().optional(),
    currency: currencySchema.default('USD'),
    lines: z.array(invoiceLineInputSchema).max(100).default([]),
    due_date: calendarDateSchema.nullable().optional(),
    memo: z.string().trim().max(2000).nullable().optional(),
    metadata: metadataSchema.default({}),
  })
  .strict();
export type CreateInvoice = z.infer<typeof createInvoiceSchema>;

export const updateInvoiceSchema = z
  .object({
    lead_id: idSchema('lead').optional(),
    workspace_id: idSchema('workspace').nullable().optional(),
    currency: currencySchema.optional(),
    lines: z.array(invoiceLineInputSchema).max(100).optional().describe('Replaces every line'),
    due_date: calendarDateSchema.nullable().optional(),
    memo: z.string().trim().max(2000).nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type UpdateInvoice = z.infer<typeof updateInvoiceSchema>;

export const listInvoicesQuerySchema = listQuerySchema.extend({
  status: z.enum(invoiceStatuses).optional(),
  lead_id: idSchema('lead').optional(),
  workspace_id: idSchema('workspace').optional(),
});
export type ListInvoicesQuery = z.infer<typeof listInvoicesQuerySchema>;
export const invoicePageSchema = pageSchema(invoiceSchema).meta({ id: 'InvoicePage' });

// ── Projects ─────────────────────────────────────────────────────────────────────────────────────────────

export const projectStatuses = ['active', 'ready', 'delivered'] as const;

export const projectDeliverableSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .default(null),
    done: z.boolean().default(false),
  })
  .strict();

export const projectSchema = z
  .object({
    id: idSchema('project'),
    object: z.literal('project'),
    lead_id: z.string().nullable().describe('The customer; null once the lead was deleted with its personal data'),
    workspace_id: z.string().nullable(),
    name: z.string(),
    status: z.enum(projectStatuses),
    due_date: calendarDateSchema.nullable(),
    deliverables: z.array(projectDeliverableSchema),
    notes: z.string().nullable(),
    delivered_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Project' });
export type Project = z.infer<typeof projectSchema>;

export const createProjectSchema = z
  .object({
    lead_id: idSchema('lead'),
    workspace_id: idSchema('workspace').nullable().optional(),
    name: z.string().trim().min(1).max(200),
    status: z.enum(['active', 'ready']).default('active').describe('Delivery is its own operation'),
    due_date: calendarDateSchema.nullable().optional(),
    deliverables: z.array(projectDeliverableSchema).max(50).default([]),
    notes: z.string().trim().max(10_000).nullable().optional(),
  })
  .strict();
export type CreateProject = z.infer<typeof createProjectSchema>;

export const updateProjectSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    status: z.enum(['active', 'ready']).optional().describe('Delivery is its own operation'),
    due_date: calendarDateSchema.nullable().optional(),
    deliverables: z.array(projectDeliverableSchema).max(50).optional().describe('Replaces every deliverable'),
    notes: z.string().trim().max(10_000).nullable().optional(),
  })
  .strict();
export type UpdateProject = z.infer<typeof updateProjectSchema>;

export const listProjectsQuerySchema = listQuerySchema.extend({
  status: z.enum(projectStatuses).optional(),
  lead_id: idSchema('lead').optional(),
  workspace_id: idSchema('workspace').optional(),
});
export type ListProjectsQuery = z.infer<typeof listProjectsQuerySchema>;
export const projectPageSchema = pageSchema(projectSchema).meta({ id: 'ProjectPage' });

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

// ── NATS operations: one per REST operation, calling the same domain function ───────────────────────────

const byId = <K extends Parameters<typeof idSchema>[0]>(kind: K) => z.object({ id: idSchema(kind) });
const idempotencyField = {
  idempotency_key: idempotencyKeySchema
    .describe('Same meaning as the Idempotency-Key header: a retried request with the same key runs once.')
    .optional(),
};

export const leadsRpc = nameOperations({
  listWorkspaces: defineRpc('svc.leads.workspaces.list', listWorkspacesQuerySchema, workspacePageSchema, 'read'),
  getWorkspace: defineRpc('svc.leads.workspaces.get', byId('workspace'), workspaceSchema, 'read'),
  createWorkspace: defineRpc('svc.leads.workspaces.create', createWorkspaceSchema.extend(idempotencyField), workspaceSchema, 'read-write'),
  updateWorkspace: defineRpc(
    'svc.leads.workspaces.update',
    byId('workspace').extend(updateWorkspaceSchema.shape),
    workspaceSchema,
    'read-write',
  ),
  deleteWorkspace: defineRpc('svc.leads.workspaces.delete', byId('workspace'), deletedSchema('workspace'), 'read-write'),

  listThemes: defineRpc('svc.leads.themes.list', listThemesQuerySchema, themePageSchema, 'read'),
  getTheme: defineRpc('svc.leads.themes.get', byId('theme'), themeSchema, 'read'),
  createTheme: defineRpc('svc.leads.themes.create', createThemeSchema.extend(idempotencyField), themeSchema, 'read-write'),
  updateTheme: defineRpc('svc.leads.themes.update', byId('theme').extend(updateThemeSchema.shape), themeSchema, 'read-write'),
  deleteTheme: defineRpc('svc.leads.themes.delete', byId('theme'), deletedSchema('theme'), 'read-write'),
  applyTheme: defineRpc('svc.leads.themes.apply', byId('theme').extend(applyThemeSchema.shape), workspaceSchema, 'read-write'),

  listLeads: defineRpc('svc.leads.leads.list', listLeadsQuerySchema, leadListPageSchema, 'read'),
  recentLeads: defineRpc('svc.leads.leads.recent', recentLeadsQuerySchema, leadPageSchema, 'read'),
  /** Leads created and qualified in a period: the console's overview. */
  countLeads: defineRpc('svc.leads.leads.count', leadCountsQuerySchema, leadCountsSchema, 'read'),
  getLead: defineRpc('svc.leads.leads.get', byId('lead'), leadDetailSchema, 'read'),
  createLead: defineRpc('svc.leads.leads.create', createLeadSchema.extend(idempotencyField), leadSchema, 'read-write'),
  updateLead: defineRpc('svc.leads.leads.update', byId('lead').extend(updateLeadSchema.shape), leadSchema, 'read-write'),
  deleteLead: defineRpc('svc.leads.leads.delete', byId('lead'), deletedSchema('lead'), 'read-write', { approval: true }),
  addLeadNote: defineRpc(
    'svc.leads.notes.create',
    byId('lead').extend(createLeadNoteSchema.shape).extend(idempotencyField),
    leadNoteSchema,
    'read-write',
  ),
  listLeadNotes: defineRpc('svc.leads.notes.list', byId('lead').extend(listLeadNotesQuerySchema.shape), leadNotePageSchema, 'read'),

  listSequences: defineRpc('svc.leads.sequences.list', listSequencesQuerySchema, sequencePageSchema, 'read'),
  getSequence: defineRpc('svc.leads.sequences.get', byId('sequence'), sequenceSchema, 'read'),
  createSequence: defineRpc('svc.leads.sequences.create', createSequenceSchema.extend(idempotencyField), sequenceSchema, 'read-write'),
  updateSequence: defineRpc(
    'svc.leads.sequences.update',
    byId('sequence').extend(updateSequenceSchema.shape),
    sequenceSchema,
    'read-write',
  ),
  deleteSequence: defineRpc('svc.leads.sequences.delete', byId('sequence'), deletedSchema('sequence'), 'read-write'),
  enroll: defineRpc(
    'svc.leads.enrollments.create',
    z.object({ sequence_id: idSchema('sequence') }).extend(enrollLeadsSchema.shape),
    enrollmentListSchema,
    'read-write',
  ),
  unenroll: defineRpc(
    'svc.leads.enrollments.stop',
    z.object({ sequence_id: idSchema('sequence'), enrollment_id: idSchema('enrollment') }).extend(stopEnrollmentSchema.shape),
    enrollmentSchema,
    'read-write',
  ),
  /** Stops a lead's active enrollment in a sequence, for callers that know the lead rather than the enrollment. */
  unenrollLead: defineRpc(
    'svc.leads.enrollments.stop_lead',
    z.object({ sequence_id: idSchema('sequence'), lead_id: idSchema('lead') }).extend(stopEnrollmentSchema.shape),
    enrollmentSchema,
    'read-write',
  ),
  listEnrollments: defineRpc(
    'svc.leads.enrollments.list',
    listEnrollmentsQuerySchema.extend({ sequence_id: idSchema('sequence').optional() }),
    enrollmentPageSchema,
    'read',
  ),
  getEnrollment: defineRpc(
    'svc.leads.enrollments.get',
    z.object({ sequence_id: idSchema('sequence'), enrollment_id: idSchema('enrollment') }),
    enrollmentSchema,
    'read',
  ),

  listInvoices: defineRpc('svc.leads.invoices.list', listInvoicesQuerySchema, invoicePageSchema, 'read'),
  getInvoice: defineRpc('svc.leads.invoices.get', byId('invoice'), invoiceSchema, 'read'),
  draftInvoice: defineRpc('svc.leads.invoices.create', createInvoiceSchema.extend(idempotencyField), invoiceSchema, 'read-write'),
  updateInvoice: defineRpc('svc.leads.invoices.update', byId('invoice').extend(updateInvoiceSchema.shape), invoiceSchema, 'read-write'),
  deleteInvoice: defineRpc('svc.leads.invoices.delete', byId('invoice'), deletedSchema('invoice'), 'read-write'),
  sendInvoice: defineRpc('svc.leads.invoices.send', byId('invoice'), invoiceSchema, 'read-write', { approval: true }),
  markInvoicePaid: defineRpc('svc.leads.invoices.pay', byId('invoice'), invoiceSchema, 'read-write'),
  voidInvoice: defineRpc('svc.leads.invoices.void', byId('invoice'), invoiceSchema, 'read-write'),

  listProjects: defineRpc('svc.leads.projects.list', listProjectsQuerySchema, projectPageSchema, 'read'),
  getProject: defineRpc('svc.leads.projects.get', byId('project'), projectSchema, 'read'),
  createProject: defineRpc('svc.leads.projects.create', createProjectSchema.extend(idempotencyField), projectSchema, 'read-write'),
  updateProject: defineRpc('svc.leads.projects.update', byId('project').extend(updateProjectSchema.shape), projectSchema, 'read-write'),
  deleteProject: defineRpc('svc.leads.projects.delete', byId('project'), deletedSchema('project'), 'read-write'),
  deliverProject: defineRpc('svc.leads.projects.deliver', byId('project'), projectSchema, 'read-write', { approval: true }),
});
