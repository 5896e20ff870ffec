import {
  enrollLeadsSchema,
  enrollmentListSchema,
  enrollmentPageSchema,
  enrollmentSchema,
  idSchema,
  leadsRpc,
  listEnrollmentsQuerySchema,
  listSequencesQuerySchema,
  sequencePageSchema,
  sequenceSchema,
  stopEnrollmentSchema,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool, readHints } from '../mcp/tool.js';

const sequenceId = idSchema('sequence').describe('The sequence, e.g. from service_list_sequences');

export const sequenceTools = [
  defineTool({
    name: 'service_list_sequences',
    title: 'List follow-up sequences',
    description: 'Follow-up sequences (timed calls, SMS and waits), optionally of one workspace, newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listSequencesQuerySchema,
    output: sequencePageSchema,
    run: (args, { call }) => call(leadsRpc.listSequences, args),
  }),
  defineTool({
    name: 'service_get_sequence',
    title: 'Get a sequence',
    description: 'One follow-up sequence with its steps.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ sequence_id: sequenceId }),
    output: sequenceSchema,
    run: (args, { call }) => call(leadsRpc.getSequence, { id: args.sequence_id }),
  }),
  defineTool({
    name: 'service_enroll_sequence',
    title: 'Enroll leads in a sequence',
    description:
      'Starts a follow-up sequence for up to 100 leads. A lead already active in the sequence keeps its enrollment; steps to numbers on the do-not-call list are skipped.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: enrollLeadsSchema.extend({ sequence_id: sequenceId }),
    output: enrollmentListSchema,
    run: (args, { call }) => call(leadsRpc.enroll, args),
  }),
  defineTool({
    name: 'service_unenroll_sequence',
    title: 'Stop a lead’s enrollment',
    description: 'Stops a lead’s active enrollment in a sequence; no further steps run for it.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: stopEnrollmentSchema.extend({ sequence_id: sequenceId, lead_id: idSchema('lead').describe('The enrolled lead') }),
    output: enrollmentSchema,
    run: (args, { call }) => call(leadsRpc.unenrollLead, args),
  }),
  defineTool({
    name: 'service_list_enrollments',
    title: 'List enrollments',
    description: 'Enrollments by sequence or by lead (or both), optionally by status, newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listEnrollmentsQuerySchema.extend({ sequence_id: sequenceId.optional() }),
    output: enrollmentPageSchema,
    run: (args, { call }) => call(leadsRpc.listEnrollments, args),
  }),
];
