import { type HttpApp, identityOf } from '@voice/kit';
import {
  createLeadNoteSchema,
  createLeadSchema,
  deletedSchema,
  enrollmentPageSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  leadDetailSchema,
  leadListPageSchema,
  leadNotePageSchema,
  leadNoteSchema,
  leadPageSchema,
  leadSchema,
  leadsRpc,
  listEnrollmentsQuerySchema,
  listLeadNotesQuerySchema,
  listLeadsQuerySchema,
  recentLeadsQuerySchema,
  updateLeadSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
import { addLeadNote, createLead, deleteLead, getLeadDetail, getLeadNotes, updateLead } from '../domain/leads.js';
import { listEnrollmentsOf } from '../domain/sequences.js';
import { listLeads, listRecentLeads } from '../store/leads.js';
import { once } from './common.js';

const params = z.object({ id: idSchema('lead') });
const tags = ['leads'];

export function leadRoutes(app: HttpApp, deps: LeadsDeps): void {
  app.get(
    '/api/v1/leads',
    {
      schema: {
        tags,
        summary: 'List leads by status, workspace, tag, owner, source or text',
        querystring: listLeadsQuerySchema,
        response: { 200: leadListPageSchema },
      },
      config: { operation: leadsRpc.listLeads },
    },
    async (request) => listLeads(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.get(
    '/api/v1/leads/recent',
    {
      schema: {
        tags,
        summary: 'Leads created in the last since_hours (default 168), optionally only qualified ones',
        querystring: recentLeadsQuerySchema,
        response: { 200: leadPageSchema },
      },
      config: { operation: leadsRpc.recentLeads },
    },
    async (request) => listRecentLeads(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.post(
    '/api/v1/leads',
    {
      schema: {
        tags,
        summary: 'Create a lead',
        headers: idempotencyKeyHeadersSchema,
        body: createLeadSchema,
        response: { 201: leadSchema },
      },
      config: { operation: leadsRpc.createLead },
    },
    async (request, reply) => once(deps, request, reply, 'leads.create', (identity) => createLead(deps, identity, request.body)),
  );
  app.get(
    '/api/v1/leads/:id',
    {
      schema: { tags, summary: 'Get a lead with its latest notes, enrollments and calls', params, response: { 200: leadDetailSchema } },
      config: { operation: leadsRpc.getLead },
    },
    async (request) => getLeadDetail(deps, identityOf(request), request.params.id),
  );
  app.patch(
    '/api/v1/leads/:id',
    {
      schema: {
        tags,
        summary: 'Change a lead: status, tags, owner, fields',
        params,
        body: updateLeadSchema,
        response: { 200: leadSchema },
      },
      config: { operation: leadsRpc.updateLead },
    },
    async (request) => updateLead(deps, identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/leads/:id',
    {
      schema: {
        tags,
        summary: 'Delete a lead with its notes and enrollments (its personal data)',
        params,
        response: { 200: deletedSchema('lead') },
      },
      config: { operation: leadsRpc.deleteLead },
    },
    async (request) => deleteLead(deps, identityOf(request), request.params.id),
  );
  app.get(
    '/api/v1/leads/:id/notes',
    {
      schema: {
        tags,
        summary: 'List a lead’s notes, newest first',
        params,
        querystring: listLeadNotesQuerySchema,
        response: { 200: leadNotePageSchema },
      },
      config: { operation: leadsRpc.listLeadNotes },
    },
    async (request) => getLeadNotes(deps, identityOf(request), request.params.id, request.query),
  );
  app.post(
    '/api/v1/leads/:id/notes',
    {
      schema: {
        tags,
        summary: 'Append a note to a lead',
        params,
        headers: idempotencyKeyHeadersSchema,
        body: createLeadNoteSchema,
        response: { 201: leadNoteSchema },
      },
      config: { operation: leadsRpc.addLeadNote },
    },
    async (request, reply) =>
      once(deps, request, reply, 'leads.notes.create', (identity) => addLeadNote(deps, identity, request.params.id, request.body)),
  );
  app.get(
    '/api/v1/leads/:id/enrollments',
    {
      schema: {
        tags,
        summary: 'List a lead’s sequence enrollments',
        params,
        querystring: listEnrollmentsQuerySchema.omit({ lead_id: true }),
        response: { 200: enrollmentPageSchema },
      },
      // The sequence's enrollments list is this operation's first route (`listEnrollments`).
      config: { operation: leadsRpc.listEnrollments, operationId: 'listLeadEnrollments' },
    },
    async (request) => listEnrollmentsOf(deps, identityOf(request), { ...request.query, lead_id: request.params.id }),
  );
}
