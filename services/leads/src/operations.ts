import type { OperationHandlers } from '@voice/kit';
import type { leadsRpc } from '@voice/proto';
import type { LeadsDeps } from './deps.js';
import { deleteInvoice, draftInvoice, getInvoice, markInvoicePaid, sendInvoice, updateInvoice, voidInvoice } from './domain/invoices.js';
import { addLeadNote, createLead, deleteLead, getLeadDetail, getLeadNotes, updateLead } from './domain/leads.js';
import { createProject, deleteProject, deliverProject, getProject, updateProject } from './domain/projects.js';
import {
  createSequence,
  deleteSequence,
  enrollLeads,
  getEnrollment,
  getSequence,
  listEnrollmentsOf,
  stopEnrollment,
  updateSequence,
} from './domain/sequences.js';
import { applyTheme, createTheme, deleteTheme, getTheme, updateTheme } from './domain/themes.js';
import { createWorkspace, deleteWorkspace, getWorkspace, updateWorkspace } from './domain/workspaces.js';
import { listInvoices } from './store/invoices.js';
import { countLeads, listLeads, listRecentLeads } from './store/leads.js';
import { listProjects } from './store/projects.js';
import { listSequences } from './store/sequences.js';
import { listThemes } from './store/themes.js';
import { listWorkspaces } from './store/workspaces.js';

/**
 * What each operation of `leadsRpc` does, over REST and NATS alike (its definition says where and how,
 * and which run once per idempotency key).
 */
export function leadsOperations(deps: LeadsDeps): OperationHandlers<typeof leadsRpc> {
  const { prisma } = deps;
  return {
    listWorkspaces: (input, identity) => listWorkspaces(prisma, identity.org_id, input),
    getWorkspace: (input, identity) => getWorkspace(deps, identity, input.id),
    createWorkspace: (input, identity) => createWorkspace(deps, identity, input),
    updateWorkspace: ({ id, ...changes }, identity) => updateWorkspace(deps, identity, id, changes),
    deleteWorkspace: (input, identity) => deleteWorkspace(deps, identity, input.id),

    listThemes: (input, identity) => listThemes(prisma, identity.org_id, input),
    getTheme: (input, identity) => getTheme(deps, identity, input.id),
    createTheme: (input, identity) => createTheme(deps, identity, input),
    updateTheme: ({ id, ...changes }, identity) => updateTheme(deps, identity, id, changes),
    deleteTheme: (input, identity) => deleteTheme(deps, identity, input.id),
    applyTheme: (input, identity) => applyTheme(deps, identity, input.id, input.workspace_id),

    listLeads: (input, identity) => listLeads(prisma, identity.org_id, input),
    recentLeads: (input, identity) => listRecentLeads(prisma, identity.org_id, input),
    countLeads: (input, identity) => countLeads(prisma, identity.org_id, input),
    getLead: (input, identity) => getLeadDetail(deps, identity, input.id),
    createLead: (input, identity) => createLead(deps, identity, input),
    updateLead: ({ id, ...changes }, identity) => updateLead(deps, identity, id, changes),
    deleteLead: (input, identity) => deleteLead(deps, identity, input.id),
    addLeadNote: ({ id, ...note }, identity) => addLeadNote(deps, identity, id, note),
    listLeadNotes: ({ id, ...query }, identity) => getLeadNotes(deps, identity, id, query),

    listSequences: (input, identity) => listSequences(prisma, identity.org_id, input),
    getSequence: (input, identity) => getSequence(deps, identity, input.id),
    createSequence: (input, identity) => createSequence(deps, identity, input),
    updateSequence: ({ id, ...changes }, identity) => updateSequence(deps, identity, id, changes),
    deleteSequence: (input, identity) => deleteSequence(deps, identity, input.id),
    // An unknown sequence is reported as the REST path names it (`id`), as the route did; NATS said `sequence_id`.
    enroll: async (input, identity) => ({ data: await enrollLeads(deps, identity, input.sequence_id, input.lead_ids) }),
    unenroll: (input, identity) =>
      stopEnrollment(deps, identity, { sequenceId: input.sequence_id, enrollmentId: input.enrollment_id }, input.reason),
    unenrollLead: (input, identity) =>
      stopEnrollment(deps, identity, { sequenceId: input.sequence_id, leadId: input.lead_id }, input.reason),
    listEnrollments: (input, identity) => listEnrollmentsOf(deps, identity, input),
    getEnrollment: (input, identity) => getEnrollment(deps, identity, input.sequence_id, input.enrollment_id),

    listInvoices: (input, identity) => listInvoices(prisma, identity.org_id, input),
    getInvoice: (input, identity) => getInvoice(deps, identity, input.id),
    draftInvoice: (input, identity) => draftInvoice(deps, identity, input),
    updateInvoice: ({ id, ...changes }, identity) => updateInvoice(deps, identity, id, changes),
    deleteInvoice: (input, identity) => deleteInvoice(deps, identity, input.id),
    sendInvoice: (input, identity) => sendInvoice(deps, identity, input.id),
    markInvoicePaid: (input, identity) => markInvoicePaid(deps, identity, input.id),
    voidInvoice: (input, identity) => voidInvoice(deps, identity, input.id),

    listProjects: (input, identity) => listProjects(prisma, identity.org_id, input),
    getProject: (input, identity) => getProject(deps, identity, input.id),
    createProject: (input, identity) => createProject(deps, identity, input),
    updateProject: ({ id, ...changes }, identity) => updateProject(deps, identity, id, changes),
    deleteProject: (input, identity) => deleteProject(deps, identity, input.id),
    deliverProject: (input, identity) => deliverProject(deps, identity, input.id),
  };
}
