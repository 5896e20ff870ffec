// Sequences of call, SMS and wait steps, and the enrollments of leads in them.
import { z } from 'zod';
import { metadataSchema, timestampSchema } from '../common.js';
import { idSchema } from '../ids.js';
import { listQuerySchema, pageSchema } from '../pagination.js';

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
