// The leads service's operations (`leadsRpc`), over NATS and REST.
import { z } from 'zod';
import { deletedSchema, idempotencyKeySchema } from '../common.js';
import { idSchema } from '../ids.js';
import { defineRpc, nameOperations } from '../rpc.js';
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
