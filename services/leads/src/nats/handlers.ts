import { runIdempotent } from '@voice/kit';
import { type Identity, leadsRpc } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import { deleteInvoice, draftInvoice, getInvoice, markInvoicePaid, sendInvoice, updateInvoice, voidInvoice } from '../domain/invoices.js';
import { addLeadNote, createLead, deleteLead, getLeadDetail, getLeadNotes, updateLead } from '../domain/leads.js';
import { createProject, deleteProject, deliverProject, getProject, updateProject } from '../domain/projects.js';
import {
  createSequence,
  deleteSequence,
  enrollLeads,
  getEnrollment,
  getSequence,
  listEnrollmentsOf,
  stopEnrollment,
  updateSequence,
} from '../domain/sequences.js';
import { applyTheme, createTheme, deleteTheme, getTheme, updateTheme } from '../domain/themes.js';
import { createWorkspace, deleteWorkspace, getWorkspace, updateWorkspace } from '../domain/workspaces.js';
import { listInvoices } from '../store/invoices.js';
import { countLeads, listLeads, listRecentLeads } from '../store/leads.js';
import { listProjects } from '../store/projects.js';
import { listSequences } from '../store/sequences.js';
import { listThemes } from '../store/themes.js';
import { listWorkspaces } from '../store/workspaces.js';

/**
 * The same operations as the REST routes, for the MCP service and other services: each handler calls
 * the domain function its route calls; `bus.serve` checks each one's scope. Creates honour `idempotency_key`
 * like the REST header.
 */
export function serveLeadsRpc(deps: LeadsDeps): void {
  const { bus, prisma } = deps;
  const create = async <I extends { idempotency_key?: string | undefined }, T>(
    operation: string,
    identity: Identity,
    input: I,
    work: (body: Omit<I, 'idempotency_key'>) => Promise<T>,
  ): Promise<T> => {
    return (await runIdempotent(deps, identity.org_id, operation, input, work)).body;
  };

  bus.serve(leadsRpc.listWorkspaces, (input, identity) => listWorkspaces(prisma, identity.org_id, input));
  bus.serve(leadsRpc.getWorkspace, (input, identity) => getWorkspace(deps, identity, input.id));
  bus.serve(leadsRpc.createWorkspace, (input, identity) =>
    create('workspaces.create', identity, input, (body) => createWorkspace(deps, identity, body)),
  );
  bus.serve(leadsRpc.updateWorkspace, ({ id, ...input }, identity) => updateWorkspace(deps, identity, id, input));
  bus.serve(leadsRpc.deleteWorkspace, (input, identity) => deleteWorkspace(deps, identity, input.id));

  bus.serve(leadsRpc.listThemes, (input, identity) => listThemes(prisma, identity.org_id, input));
  bus.serve(leadsRpc.getTheme, (input, identity) => getTheme(deps, identity, input.id));
  bus.serve(leadsRpc.createTheme, (input, identity) =>
    create('themes.create', identity, input, (body) => createTheme(deps, identity, body)),
  );
  bus.serve(leadsRpc.updateTheme, ({ id, ...input }, identity) => updateTheme(deps, identity, id, input));
  bus.serve(leadsRpc.deleteTheme, (input, identity) => deleteTheme(deps, identity, input.id));
  bus.serve(leadsRpc.applyTheme, (input, identity) => applyTheme(deps, identity, input.id, input.workspace_id));

  bus.serve(leadsRpc.listLeads, (input, identity) => listLeads(prisma, identity.org_id, input));
  bus.serve(leadsRpc.recentLeads, (input, identity) => listRecentLeads(prisma, identity.org_id, input));
  bus.serve(leadsRpc.countLeads, (input, identity) => countLeads(prisma, identity.org_id, input));
  bus.serve(leadsRpc.getLead, (input, identity) => getLeadDetail(deps, identity, input.id));
  bus.serve(leadsRpc.createLead, (input, identity) => create('leads.create', identity, input, (body) => createLead(deps, identity, body)));
  bus.serve(leadsRpc.updateLead, ({ id, ...input }, identity) => updateLead(deps, identity, id, input));
  bus.serve(leadsRpc.deleteLead, (input, identity) => deleteLead(deps, identity, input.id));
  bus.serve(leadsRpc.addLeadNote, (input, identity) =>
    create('leads.notes.create', identity, input, ({ id, ...body }) => addLeadNote(deps, identity, id, body)),
  );
  bus.serve(leadsRpc.listLeadNotes, ({ id, ...input }, identity) => getLeadNotes(deps, identity, id, input));

  bus.serve(leadsRpc.listSequences, (input, identity) => listSequences(prisma, identity.org_id, input));
  bus.serve(leadsRpc.getSequence, (input, identity) => getSequence(deps, identity, input.id));
  bus.serve(leadsRpc.createSequence, (input, identity) =>
    create('sequences.create', identity, input, (body) => createSequence(deps, identity, body)),
  );
  bus.serve(leadsRpc.updateSequence, ({ id, ...input }, identity) => updateSequence(deps, identity, id, input));
  bus.serve(leadsRpc.deleteSequence, (input, identity) => deleteSequence(deps, identity, input.id));
  bus.serve(leadsRpc.enroll, async (input, identity) => ({
    data: await enrollLeads(deps, identity, input.sequence_id, input.lead_ids, 'sequence_id'),
  }));
  bus.serve(leadsRpc.unenroll, (input, identity) =>
    stopEnrollment(deps, identity, { sequenceId: input.sequence_id, enrollmentId: input.enrollment_id }, input.reason),
  );
  bus.serve(leadsRpc.unenrollLead, (input, identity) =>
    stopEnrollment(deps, identity, { sequenceId: input.sequence_id, leadId: input.lead_id }, input.reason),
  );
  bus.serve(leadsRpc.listEnrollments, (input, identity) => listEnrollmentsOf(deps, identity, input));
  bus.serve(leadsRpc.getEnrollment, (input, identity) => getEnrollment(deps, identity, input.sequence_id, input.enrollment_id));

  bus.serve(leadsRpc.listInvoices, (input, identity) => listInvoices(prisma, identity.org_id, input));
  bus.serve(leadsRpc.getInvoice, (input, identity) => getInvoice(deps, identity, input.id));
  bus.serve(leadsRpc.draftInvoice, (input, identity) =>
    create('invoices.create', identity, input, (body) => draftInvoice(deps, identity, body)),
  );
  bus.serve(leadsRpc.updateInvoice, ({ id, ...input }, identity) => updateInvoice(deps, identity, id, input));
  bus.serve(leadsRpc.deleteInvoice, (input, identity) => deleteInvoice(deps, identity, input.id));
  bus.serve(leadsRpc.sendInvoice, (input, identity) => sendInvoice(deps, identity, input.id));
  bus.serve(leadsRpc.markInvoicePaid, (input, identity) => markInvoicePaid(deps, identity, input.id));
  bus.serve(leadsRpc.voidInvoice, (input, identity) => voidInvoice(deps, identity, input.id));

  bus.serve(leadsRpc.listProjects, (input, identity) => listProjects(prisma, identity.org_id, input));
  bus.serve(leadsRpc.getProject, (input, identity) => getProject(deps, identity, input.id));
  bus.serve(leadsRpc.createProject, (input, identity) =>
    create('projects.create', identity, input, (body) => createProject(deps, identity, body)),
  );
  bus.serve(leadsRpc.updateProject, ({ id, ...input }, identity) => updateProject(deps, identity, id, input));
  bus.serve(leadsRpc.deleteProject, (input, identity) => deleteProject(deps, identity, input.id));
  bus.serve(leadsRpc.deliverProject, (input, identity) => deliverProject(deps, identity, input.id));
}
