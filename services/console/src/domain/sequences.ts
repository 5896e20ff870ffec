import type { Bus, Logger } from '@voice/kit';
import { enrollmentStatuses, type ListEnrollmentsQuery, type ListSequencesQuery, leadsRpc } from '@voice/proto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ConsoleEnv } from '../env.js';
import { audited, isFormKey, oncePerForm } from './console-actions.js';
import { personOnGateway } from './identity.js';
import { cursorField } from './list-query.js';
import type { SignedIn } from './sessions.js';

/** Rows of one page of the sequences list, and of a sequence's enrollments. */
export const sequencesPageSize = 25;
export const enrollmentsPageSize = 25;

const blankIsAny = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** A sequence's page: its enrollments filtered by `status` (empty: any), paged with `cursor`. */
export const enrollmentFilterSchema = z.object({
  status: z.preprocess(blankIsAny, z.enum(enrollmentStatuses, 'Choose active, completed or stopped.').optional()),
  cursor: cursorField,
});
export type EnrollmentFilters = z.output<typeof enrollmentFilterSchema>;

const staleForm = 'This form is incomplete or out of date: reload the page and enroll the lead again.';

/** The "Enroll a lead" form: the lead's id as typed (the operation judges it) and the form's key. */
export const enrollFormSchema = z.object({
  lead_id: z.preprocess((value) => (typeof value === 'string' ? value.trim() : value), z.string().default('')),
  form_key: z.string(staleForm).refine(isFormKey, staleForm),
});

export interface SequencesConsoleContext {
  bus: Bus;
  redis: Redis;
  logger: Logger;
  env: ConsoleEnv;
}

export const sequencePath = (sequenceId: string) => `/dashboard/sequences/${sequenceId}`;
export const unenrollPath = (sequenceId: string, leadId: string) => `${sequencePath(sequenceId)}/leads/${leadId}/unenroll`;

/**
 * The leads service's sequence operations for one person and request, as the person (`read` for members, so
 * the service itself refuses their changes): the NATS operations the API and the MCP `sequences` toolset use,
 * so enrolling and unenrolling fire the same `enrollment.*` events and webhooks. Changes are audited with the
 * person as actor.
 */
export async function sequencesFor(ctx: SequencesConsoleContext, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    list: (query: ListSequencesQuery) => ctx.bus.call(leadsRpc.listSequences, identity, query),
    get: (id: string) => ctx.bus.call(leadsRpc.getSequence, identity, { id }),
    enrollments: (sequenceId: string, query: Omit<ListEnrollmentsQuery, 'limit'> & { limit?: number }) =>
      ctx.bus.call(leadsRpc.listEnrollments, identity, { ...query, sequence_id: sequenceId }),
    /** The lead's active enrollment in the sequence, what the unenroll confirmation shows; undefined when none. */
    activeEnrollment: async (sequenceId: string, leadId: string) =>
      (await ctx.bus.call(leadsRpc.listEnrollments, identity, { sequence_id: sequenceId, lead_id: leadId, status: 'active', limit: 1 }))
        .data[0],
    /**
     * Enrolls one lead, once per rendered form: the operation keeps a lead's active enrollment anyway, and the
     * form's key makes a resubmitted form (after an unenroll in between, say) enroll nobody twice.
     */
    enroll: (sequenceId: string, leadId: string, formKey: string) =>
      audited(ctx, identity, { path: `${sequencePath(sequenceId)}/enrollments`, status: 201 }, () =>
        oncePerForm(
          ctx,
          {
            orgId: identity.org_id,
            userId: signedIn.user.id,
            operation: 'console.sequences.enroll',
            formKey,
            fingerprint: { sequenceId, leadId },
          },
          () => ctx.bus.call(leadsRpc.enroll, identity, { sequence_id: sequenceId, lead_ids: [leadId] }),
        ),
      ),
    /** Stops the lead's active enrollment (MCP's `service_unenroll_sequence` runs the same operation). */
    unenroll: (sequenceId: string, leadId: string) =>
      audited(ctx, identity, { path: unenrollPath(sequenceId, leadId), status: 200 }, () =>
        ctx.bus.call(leadsRpc.unenrollLead, identity, { sequence_id: sequenceId, lead_id: leadId }),
      ),
  };
}
export type OrganizationSequences = Awaited<ReturnType<typeof sequencesFor>>;
