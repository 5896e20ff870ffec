// The leads service's operations (`leadsRpc`), over NATS and REST.
import { z } from 'zod';
import { deletedSchema, idempotencyKeySchema } from '../common.js';
import { idSchema } from '../ids.js';
import { defineRpc, type HttpRoute, nameOperations } from '../rpc.js';
import { createInvoiceSchema, invoicePageSchema, invoiceSchema, listInvoicesQuerySchema, updateInvoiceSchema } from './invoices.js';
import {
  createLeadNoteSchema,
  createLeadSchema,
  leadCountsQuerySchema,
  leadCountsSchema,
  leadDetailSchema,
  leadListPageSchema,
  leadNotePageSchema,
  leadNoteSchema,
  leadPageSchema,
  leadSchema,
  listLeadNotesQuerySchema,
  listLeadsQuerySchema,
  recentLeadsQuerySchema,
  updateLeadSchema,
} from './leads.js';
import { createProjectSchema, listProjectsQuerySchema, projectPageSchema, projectSchema, updateProjectSchema } from './projects.js';
import {
  createSequenceSchema,
  enrollLeadsSchema,
  enrollmentListSchema,
  enrollmentPageSchema,
  enrollmentSchema,
  listEnrollmentsQuerySchema,
  listSequencesQuerySchema,
  sequencePageSchema,
  sequenceSchema,
  stopEnrollmentSchema,
  updateSequenceSchema,
} from './sequences.js';
import { applyThemeSchema, createThemeSchema, listThemesQuerySchema, themePageSchema, themeSchema, updateThemeSchema } from './themes.js';
import {
  createWorkspaceSchema,
  listWorkspacesQuerySchema,
  updateWorkspaceSchema,
  workspacePageSchema,
  workspaceSchema,
} from './workspaces.js';

// ── Operations: each on NATS, and on REST where it has a route ───────────────────────────────────────────

const byId = <K extends Parameters<typeof idSchema>[0]>(kind: K) => z.object({ id: idSchema(kind) });
const idempotencyField = {
  idempotency_key: idempotencyKeySchema
    .describe('Same meaning as the Idempotency-Key header: a retried request with the same key runs once.')
    .optional(),
};

/**
 * The REST routes of a resource whose records are at `path` (`/api/v1/themes`) and `path/:id`: each
 * operation states its summary and what its route takes.
 */
function resourceRoutes(path: string, tag: string, params: z.ZodType) {
  const tags = [tag];
  const one = `${path}/:id`;
  return {
    list: (summary: string, query: z.ZodType): HttpRoute => ({ method: 'GET', path, tags, summary, query }),
    create: (summary: string, body: z.ZodType): HttpRoute => ({ method: 'POST', path, tags, summary, body, status: 201 }),
    get: (summary: string): HttpRoute => ({ method: 'GET', path: one, tags, summary, params }),
    update: (summary: string, body: z.ZodType): HttpRoute => ({ method: 'PATCH', path: one, tags, summary, params, body }),
    remove: (summary: string): HttpRoute => ({ method: 'DELETE', path: one, tags, summary, params }),
    /** `POST path/:id/<verb>`: send, pay, void, deliver, apply. */
    act: (verb: string, summary: string, body?: z.ZodType): HttpRoute => ({
      method: 'POST',
      path: `${one}/${verb}`,
      tags,
      summary,
      params,
      ...(body ? { body } : {}),
    }),
  };
}

const workspaceRoutes = resourceRoutes('/api/v1/workspaces', 'workspaces', byId('workspace'));
const themeRoutes = resourceRoutes('/api/v1/themes', 'themes', byId('theme'));
const leadRoutes = resourceRoutes('/api/v1/leads', 'leads', byId('lead'));
const sequenceRoutes = resourceRoutes('/api/v1/sequences', 'sequences', byId('sequence'));
const invoiceRoutes = resourceRoutes('/api/v1/invoices', 'invoices', byId('invoice'));
const projectRoutes = resourceRoutes('/api/v1/projects', 'projects', byId('project'));

// The enrollment routes name the sequence (and, under a lead, the lead) `id` in their path; the operations
// call it `sequence_id` (`lead_id`). These path schemas check and publish `id` and hand the operation its field.
const sequencePath = byId('sequence').transform(({ id }) => ({ sequence_id: id }));
const enrollmentPath = byId('sequence')
  .extend({ enrollment_id: idSchema('enrollment') })
  .transform(({ id, enrollment_id }) => ({ sequence_id: id, enrollment_id }));
const leadPath = byId('lead').transform(({ id }) => ({ lead_id: id }));

export const leadsRpc = nameOperations({
  listWorkspaces: defineRpc('svc.leads.workspaces.list', listWorkspacesQuerySchema, workspacePageSchema, 'read', {
    http: workspaceRoutes.list('List workspaces, newest first', listWorkspacesQuerySchema),
  }),
  getWorkspace: defineRpc('svc.leads.workspaces.get', byId('workspace'), workspaceSchema, 'read', {
    http: workspaceRoutes.get('Get a workspace'),
  }),
  createWorkspace: defineRpc('svc.leads.workspaces.create', createWorkspaceSchema.extend(idempotencyField), workspaceSchema, 'read-write', {
    http: workspaceRoutes.create('Create a workspace', createWorkspaceSchema),
    idempotent: 'workspaces.create',
  }),
  updateWorkspace: defineRpc(
    'svc.leads.workspaces.update',
    byId('workspace').extend(updateWorkspaceSchema.shape),
    workspaceSchema,
    'read-write',
    { http: workspaceRoutes.update('Change a workspace: name, slug, timezone, locale, numbers, default theme', updateWorkspaceSchema) },
  ),
  deleteWorkspace: defineRpc('svc.leads.workspaces.delete', byId('workspace'), deletedSchema('workspace'), 'read-write', {
    http: workspaceRoutes.remove('Delete a workspace; its leads and other records stay, without the workspace'),
  }),

  listThemes: defineRpc('svc.leads.themes.list', listThemesQuerySchema, themePageSchema, 'read', {
    http: themeRoutes.list('List themes, newest first', listThemesQuerySchema),
  }),
  getTheme: defineRpc('svc.leads.themes.get', byId('theme'), themeSchema, 'read', { http: themeRoutes.get('Get a theme') }),
  createTheme: defineRpc('svc.leads.themes.create', createThemeSchema.extend(idempotencyField), themeSchema, 'read-write', {
    http: themeRoutes.create('Create a theme', createThemeSchema),
    idempotent: 'themes.create',
  }),
  updateTheme: defineRpc('svc.leads.themes.update', byId('theme').extend(updateThemeSchema.shape), themeSchema, 'read-write', {
    http: themeRoutes.update('Change a theme', updateThemeSchema),
  }),
  deleteTheme: defineRpc('svc.leads.themes.delete', byId('theme'), deletedSchema('theme'), 'read-write', {
    http: themeRoutes.remove('Delete a theme'),
  }),
  applyTheme: defineRpc('svc.leads.themes.apply', byId('theme').extend(applyThemeSchema.shape), workspaceSchema, 'read-write', {
    http: themeRoutes.act('apply', 'Make the theme a workspace’s default; returns the workspace', applyThemeSchema),
  }),

  listLeads: defineRpc('svc.leads.leads.list', listLeadsQuerySchema, leadListPageSchema, 'read', {
    http: leadRoutes.list('List leads by status, workspace, tag, owner, source or text', listLeadsQuerySchema),
  }),
  recentLeads: defineRpc('svc.leads.leads.recent', recentLeadsQuerySchema, leadPageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/leads/recent',
      tags: ['leads'],
      summary: 'Leads created in the last since_hours (default 168), optionally only qualified ones',
      query: recentLeadsQuerySchema,
    },
  }),
  /** Leads created and qualified in a period: the console's overview. */
  countLeads: defineRpc('svc.leads.leads.count', leadCountsQuerySchema, leadCountsSchema, 'read'),
  getLead: defineRpc('svc.leads.leads.get', byId('lead'), leadDetailSchema, 'read', {
    http: leadRoutes.get('Get a lead with its latest notes, enrollments and calls'),
  }),
  createLead: defineRpc('svc.leads.leads.create', createLeadSchema.extend(idempotencyField), leadSchema, 'read-write', {
    http: leadRoutes.create('Create a lead', createLeadSchema),
    idempotent: 'leads.create',
  }),
  updateLead: defineRpc('svc.leads.leads.update', byId('lead').extend(updateLeadSchema.shape), leadSchema, 'read-write', {
    http: leadRoutes.update('Change a lead: status, tags, owner, fields', updateLeadSchema),
  }),
  deleteLead: defineRpc('svc.leads.leads.delete', byId('lead'), deletedSchema('lead'), 'read-write', {
    approval: true,
    http: leadRoutes.remove('Delete a lead with its notes and enrollments (its personal data)'),
  }),
  addLeadNote: defineRpc(
    'svc.leads.notes.create',
    byId('lead').extend(createLeadNoteSchema.shape).extend(idempotencyField),
    leadNoteSchema,
    'read-write',
    {
      http: {
        method: 'POST',
        path: '/api/v1/leads/:id/notes',
        tags: ['leads'],
        summary: 'Append a note to a lead',
        params: byId('lead'),
        body: createLeadNoteSchema,
        status: 201,
      },
      idempotent: 'leads.notes.create',
    },
  ),
  listLeadNotes: defineRpc('svc.leads.notes.list', byId('lead').extend(listLeadNotesQuerySchema.shape), leadNotePageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/leads/:id/notes',
      tags: ['leads'],
      summary: 'List a lead’s notes, newest first',
      params: byId('lead'),
      query: listLeadNotesQuerySchema,
    },
  }),

  listSequences: defineRpc('svc.leads.sequences.list', listSequencesQuerySchema, sequencePageSchema, 'read', {
    http: sequenceRoutes.list('List follow-up sequences', listSequencesQuerySchema),
  }),
  getSequence: defineRpc('svc.leads.sequences.get', byId('sequence'), sequenceSchema, 'read', {
    http: sequenceRoutes.get('Get a sequence with its steps'),
  }),
  createSequence: defineRpc('svc.leads.sequences.create', createSequenceSchema.extend(idempotencyField), sequenceSchema, 'read-write', {
    http: sequenceRoutes.create('Create a sequence of call, SMS and wait steps', createSequenceSchema),
    idempotent: 'sequences.create',
  }),
  updateSequence: defineRpc(
    'svc.leads.sequences.update',
    byId('sequence').extend(updateSequenceSchema.shape),
    sequenceSchema,
    'read-write',
    { http: sequenceRoutes.update('Change a sequence; running enrollments keep their steps', updateSequenceSchema) },
  ),
  deleteSequence: defineRpc('svc.leads.sequences.delete', byId('sequence'), deletedSchema('sequence'), 'read-write', {
    http: sequenceRoutes.remove('Delete a sequence without active enrollments'),
  }),
  enroll: defineRpc(
    'svc.leads.enrollments.create',
    z
      .object({ sequence_id: idSchema('sequence') })
      .extend(enrollLeadsSchema.shape)
      .extend(idempotencyField),
    enrollmentListSchema,
    'read-write',
    {
      http: {
        method: 'POST',
        path: '/api/v1/sequences/:id/enrollments',
        tags: ['sequences'],
        summary: 'Enroll leads; a lead already active in the sequence keeps its enrollment',
        params: sequencePath,
        errorParams: { sequence_id: 'id' },
        body: enrollLeadsSchema,
        status: 201,
      },
      idempotent: 'sequences.enroll',
    },
  ),
  unenroll: defineRpc(
    'svc.leads.enrollments.stop',
    z.object({ sequence_id: idSchema('sequence'), enrollment_id: idSchema('enrollment') }).extend(stopEnrollmentSchema.shape),
    enrollmentSchema,
    'read-write',
    {
      http: {
        method: 'POST',
        path: '/api/v1/sequences/:id/enrollments/:enrollment_id/stop',
        tags: ['sequences'],
        summary: 'Unenroll: stop the enrollment’s future steps',
        params: enrollmentPath,
        errorParams: { sequence_id: 'id' },
        body: stopEnrollmentSchema.nullish(),
      },
    },
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
    {
      http: [
        {
          method: 'GET',
          path: '/api/v1/sequences/:id/enrollments',
          tags: ['sequences'],
          summary: 'List a sequence’s enrollments by lead or status',
          params: sequencePath,
          errorParams: { sequence_id: 'id' },
          query: listEnrollmentsQuerySchema,
        },
        {
          method: 'GET',
          path: '/api/v1/leads/:id/enrollments',
          tags: ['leads'],
          summary: 'List a lead’s sequence enrollments',
          params: leadPath,
          errorParams: { lead_id: 'id' },
          query: listEnrollmentsQuerySchema.omit({ lead_id: true }),
          operationId: 'listLeadEnrollments',
        },
      ],
    },
  ),
  getEnrollment: defineRpc(
    'svc.leads.enrollments.get',
    z.object({ sequence_id: idSchema('sequence'), enrollment_id: idSchema('enrollment') }),
    enrollmentSchema,
    'read',
    {
      http: {
        method: 'GET',
        path: '/api/v1/sequences/:id/enrollments/:enrollment_id',
        tags: ['sequences'],
        summary: 'Get an enrollment with its step history',
        params: enrollmentPath,
        errorParams: { sequence_id: 'id' },
      },
    },
  ),

  listInvoices: defineRpc('svc.leads.invoices.list', listInvoicesQuerySchema, invoicePageSchema, 'read', {
    http: invoiceRoutes.list('List invoices by status, customer or workspace', listInvoicesQuerySchema),
  }),
  getInvoice: defineRpc('svc.leads.invoices.get', byId('invoice'), invoiceSchema, 'read', {
    http: invoiceRoutes.get('Get an invoice with its lines'),
  }),
  draftInvoice: defineRpc('svc.leads.invoices.create', createInvoiceSchema.extend(idempotencyField), invoiceSchema, 'read-write', {
    http: invoiceRoutes.create('Draft an invoice; totals are computed from the lines (half-up per line)', createInvoiceSchema),
    idempotent: 'invoices.create',
  }),
  updateInvoice: defineRpc('svc.leads.invoices.update', byId('invoice').extend(updateInvoiceSchema.shape), invoiceSchema, 'read-write', {
    http: invoiceRoutes.update('Change a draft invoice', updateInvoiceSchema),
  }),
  deleteInvoice: defineRpc('svc.leads.invoices.delete', byId('invoice'), deletedSchema('invoice'), 'read-write', {
    http: invoiceRoutes.remove('Delete a draft invoice'),
  }),
  sendInvoice: defineRpc('svc.leads.invoices.send', byId('invoice').extend(idempotencyField), invoiceSchema, 'read-write', {
    approval: true,
    http: invoiceRoutes.act('send', 'Send a draft invoice to its customer (irreversible)'),
    idempotent: 'invoices.send',
  }),
  markInvoicePaid: defineRpc('svc.leads.invoices.pay', byId('invoice'), invoiceSchema, 'read-write', {
    http: invoiceRoutes.act('pay', 'Mark a sent invoice paid'),
  }),
  voidInvoice: defineRpc('svc.leads.invoices.void', byId('invoice'), invoiceSchema, 'read-write', {
    http: invoiceRoutes.act('void', 'Void a draft or sent invoice'),
  }),

  listProjects: defineRpc('svc.leads.projects.list', listProjectsQuerySchema, projectPageSchema, 'read', {
    http: projectRoutes.list('List projects by status, customer or workspace', listProjectsQuerySchema),
  }),
  getProject: defineRpc('svc.leads.projects.get', byId('project'), projectSchema, 'read', { http: projectRoutes.get('Get a project') }),
  createProject: defineRpc('svc.leads.projects.create', createProjectSchema.extend(idempotencyField), projectSchema, 'read-write', {
    http: projectRoutes.create('Create a project', createProjectSchema),
    idempotent: 'projects.create',
  }),
  updateProject: defineRpc('svc.leads.projects.update', byId('project').extend(updateProjectSchema.shape), projectSchema, 'read-write', {
    http: projectRoutes.update('Change a project: name, status, due date, deliverables, notes', updateProjectSchema),
  }),
  deleteProject: defineRpc('svc.leads.projects.delete', byId('project'), deletedSchema('project'), 'read-write', {
    http: projectRoutes.remove('Delete a project'),
  }),
  deliverProject: defineRpc('svc.leads.projects.deliver', byId('project').extend(idempotencyField), projectSchema, 'read-write', {
    approval: true,
    http: projectRoutes.act('deliver', 'Deliver the project to its customer (irreversible)'),
    idempotent: 'projects.deliver',
  }),
});
