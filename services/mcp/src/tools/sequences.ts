import { enrollLeadsSchema, idSchema, leadsRpc, listEnrollmentsQuerySchema, stopEnrollmentSchema } from '@voice/proto';
import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';

const sequenceId = idSchema('sequence').describe('The sequence, e.g. from service_list_sequences');

export const sequenceTools = [
  defineTool({
    name: 'service_list_sequences',
    toolset: 'sequences',
    title: 'List follow-up sequences',
    description: 'Follow-up sequences (timed calls, SMS and waits), optionally of one workspace.',
    operation: leadsRpc.listSequences,
  }),
  defineTool({
    name: 'service_get_sequence',
    toolset: 'sequences',
    title: 'Get a sequence',
    description: 'One follow-up sequence with its steps.',
    operation: leadsRpc.getSequence,
    input: z.object({ sequence_id: sequenceId }),
    rpcInput: (args) => ({ id: args.sequence_id }),
  }),
  defineTool({
    name: 'service_enroll_sequence',
    toolset: 'sequences',
    title: 'Enroll leads in a sequence',
    description:
      'Starts a follow-up sequence for up to 100 leads. A lead already active in the sequence keeps its enrollment; steps to numbers on the do-not-call list are skipped.',
    operation: leadsRpc.enroll,
    annotations: { idempotentHint: true, openWorldHint: true },
    input: enrollLeadsSchema.extend({ sequence_id: sequenceId }),
  }),
  defineTool({
    name: 'service_unenroll_sequence',
    toolset: 'sequences',
    title: 'Stop a lead’s enrollment',
    description: 'Stops a lead’s active enrollment in a sequence; no further steps run for it.',
    operation: leadsRpc.unenrollLead,
    annotations: { idempotentHint: true },
    input: stopEnrollmentSchema.extend({ sequence_id: sequenceId, lead_id: idSchema('lead').describe('The enrolled lead') }),
  }),
  defineTool({
    name: 'service_list_enrollments',
    toolset: 'sequences',
    title: 'List enrollments',
    description: 'Enrollments by sequence or by lead (or both), optionally by status.',
    operation: leadsRpc.listEnrollments,
    input: listEnrollmentsQuerySchema.extend({ sequence_id: sequenceId.optional() }),
  }),
];
