import { type HttpApp, identityOf } from '@voice/kit';
import {
  createSequenceSchema,
  deletedSchema,
  enrollLeadsSchema,
  enrollmentListSchema,
  enrollmentPageSchema,
  enrollmentSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  leadsRpc,
  listEnrollmentsQuerySchema,
  listSequencesQuerySchema,
  sequencePageSchema,
  sequenceSchema,
  stopEnrollmentSchema,
  updateSequenceSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
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
import { listSequences } from '../store/sequences.js';
import { once } from './common.js';

const params = z.object({ id: idSchema('sequence') });
const enrollmentParams = z.object({ id: idSchema('sequence'), enrollment_id: idSchema('enrollment') });
const tags = ['sequences'];

export function sequenceRoutes(app: HttpApp, deps: LeadsDeps): void {
  app.get(
    '/api/v1/sequences',
    {
      schema: { tags, summary: 'List follow-up sequences', querystring: listSequencesQuerySchema, response: { 200: sequencePageSchema } },
      config: { operation: leadsRpc.listSequences },
    },
    async (request) => listSequences(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.post(
    '/api/v1/sequences',
    {
      schema: {
        tags,
        summary: 'Create a sequence of call, SMS and wait steps',
        headers: idempotencyKeyHeadersSchema,
        body: createSequenceSchema,
        response: { 201: sequenceSchema },
      },
      config: { operation: leadsRpc.createSequence },
    },
    async (request, reply) => once(deps, request, reply, 'sequences.create', (identity) => createSequence(deps, identity, request.body)),
  );
  app.get(
    '/api/v1/sequences/:id',
    {
      schema: { tags, summary: 'Get a sequence with its steps', params, response: { 200: sequenceSchema } },
      config: { operation: leadsRpc.getSequence },
    },
    async (request) => getSequence(deps, identityOf(request), request.params.id),
  );
  app.patch(
    '/api/v1/sequences/:id',
    {
      schema: {
        tags,
        summary: 'Change a sequence; running enrollments keep their steps',
        params,
        body: updateSequenceSchema,
        response: { 200: sequenceSchema },
      },
      config: { operation: leadsRpc.updateSequence },
    },
    async (request) => updateSequence(deps, identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/sequences/:id',
    {
      schema: { tags, summary: 'Delete a sequence without active enrollments', params, response: { 200: deletedSchema('sequence') } },
      config: { operation: leadsRpc.deleteSequence },
    },
    async (request) => deleteSequence(deps, identityOf(request), request.params.id),
  );
  app.get(
    '/api/v1/sequences/:id/enrollments',
    {
      schema: {
        tags,
        summary: 'List a sequence’s enrollments by lead or status',
        params,
        querystring: listEnrollmentsQuerySchema,
        response: { 200: enrollmentPageSchema },
      },
      config: { operation: leadsRpc.listEnrollments },
    },
    async (request) => listEnrollmentsOf(deps, identityOf(request), { ...request.query, sequence_id: request.params.id }),
  );
  app.post(
    '/api/v1/sequences/:id/enrollments',
    {
      schema: {
        tags,
        summary: 'Enroll leads; a lead already active in the sequence keeps its enrollment',
        params,
        headers: idempotencyKeyHeadersSchema,
        body: enrollLeadsSchema,
        response: { 201: enrollmentListSchema },
      },
      config: { operation: leadsRpc.enroll },
    },
    async (request, reply) =>
      once(deps, request, reply, 'sequences.enroll', async (identity) => ({
        data: await enrollLeads(deps, identity, request.params.id, request.body.lead_ids),
      })),
  );
  app.get(
    '/api/v1/sequences/:id/enrollments/:enrollment_id',
    {
      schema: { tags, summary: 'Get an enrollment with its step history', params: enrollmentParams, response: { 200: enrollmentSchema } },
      config: { operation: leadsRpc.getEnrollment },
    },
    async (request) => getEnrollment(deps, identityOf(request), request.params.id, request.params.enrollment_id),
  );
  app.post(
    '/api/v1/sequences/:id/enrollments/:enrollment_id/stop',
    {
      schema: {
        tags,
        summary: 'Unenroll: stop the enrollment’s future steps',
        params: enrollmentParams,
        body: stopEnrollmentSchema.nullish(),
        response: { 200: enrollmentSchema },
      },
      config: { operation: leadsRpc.unenroll },
    },
    async (request) =>
      stopEnrollment(
        deps,
        identityOf(request),
        { sequenceId: request.params.id, enrollmentId: request.params.enrollment_id },
        request.body?.reason,
      ),
  );
}
