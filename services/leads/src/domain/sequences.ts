import { ApiError, newId } from '@voice/kit';
import type { CreateSequence, Enrollment, Identity, ListEnrollmentsQuery, Sequence, SequenceStep, UpdateSequence } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import { scheduleStep } from '../sequences/queue.js';
import { findEnrollment, insertEnrollments, listEnrollments, stopEnrollmentRow } from '../store/enrollments.js';
import { existingLeadIds, findLead } from '../store/leads.js';
import { assertWorkspace } from '../store/references.js';
import { deleteSequenceRow, findSequence, insertSequence, updateSequenceRow } from '../store/sequences.js';
import { withEvents } from './events.js';
import { sequenceSteps, toEnrollment, toSequence } from './records.js';

/** When the first step runs, for an enrollment starting at `start`. */
export function firstStepAt(steps: SequenceStep[], start: Date, delayScale: number): Date {
  return new Date(start.getTime() + (steps[0]?.delay_seconds ?? 0) * 1000 * delayScale);
}

export async function getSequence(deps: LeadsDeps, identity: Identity, id: string): Promise<Sequence> {
  return toSequence(await findSequence(deps.prisma, identity.org_id, id));
}

export async function createSequence(deps: LeadsDeps, identity: Identity, input: CreateSequence): Promise<Sequence> {
  const orgId = identity.org_id;
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const row = await insertSequence(deps.prisma, orgId, {
    id: newId('sequence'),
    name: input.name,
    description: input.description ?? null,
    workspaceId: input.workspace_id ?? null,
    steps: input.steps,
  });
  return toSequence(row);
}

export async function updateSequence(deps: LeadsDeps, identity: Identity, id: string, input: UpdateSequence): Promise<Sequence> {
  const orgId = identity.org_id;
  await findSequence(deps.prisma, orgId, id);
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const row = await updateSequenceRow(deps.prisma, orgId, id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.workspace_id !== undefined ? { workspaceId: input.workspace_id } : {}),
    ...(input.steps !== undefined ? { steps: input.steps } : {}),
  });
  return toSequence(row);
}

export async function deleteSequence(deps: LeadsDeps, identity: Identity, id: string) {
  await deleteSequenceRow(
    deps.prisma,
    identity.org_id,
    id,
    () => new ApiError('conflict', 'The sequence has active enrollments; stop them before deleting it.', { param: 'id' }),
  );
  return { id, object: 'sequence' as const, deleted: true as const };
}

/**
 * Enrolls leads in a sequence and schedules each new enrollment's first step. A lead already active in
 * the sequence keeps its enrollment (returned as is), so enrolling is safe to retry.
 */
/** `sequenceParam` names the sequence as the operation's input does (`sequence_id`; its REST routes say `id`: `errorParams`). */
export async function enrollLeads(
  deps: LeadsDeps,
  identity: Identity,
  sequenceId: string,
  leadIds: string[],
  sequenceParam = 'sequence_id',
): Promise<Enrollment[]> {
  const orgId = identity.org_id;
  const sequence = await findSequence(deps.prisma, orgId, sequenceId, sequenceParam);
  const uniqueLeadIds = [...new Set(leadIds)];
  const found = new Set(await existingLeadIds(deps.prisma, orgId, uniqueLeadIds));
  const missing = uniqueLeadIds.find((id) => !found.has(id));
  if (missing) throw new ApiError('not_found', `No such lead: ${missing}.`, { param: 'lead_ids' });
  const steps = sequenceSteps(sequence);
  const now = new Date();
  const { created, active } = await withEvents(deps, async (tx, events) => {
    const inserted = await insertEnrollments(
      tx,
      orgId,
      sequenceId,
      uniqueLeadIds.map((leadId) => ({
        id: newId('enrollment'),
        leadId,
        status: 'active' as const,
        activeSlot: true,
        steps,
        currentStep: 0,
        nextStepAt: firstStepAt(steps, now, deps.env.SEQUENCE_DELAY_SCALE),
        enrolledByKeyId: identity.key_id,
        enrolledByPlan: identity.plan,
        startedAt: now,
      })),
    );
    for (const row of inserted.created) events.add('enrollment.started', orgId, toEnrollment(row), { aggregateId: row.id });
    return inserted;
  });
  for (const row of created) {
    await scheduleStep(deps.stepQueue, deps.env, {
      org_id: orgId,
      enrollment_id: row.id,
      step: 0,
      delaySeconds: steps[0]?.delay_seconds ?? 0,
    });
  }
  // The active enrollments were read before any step was scheduled, so every requested lead has one,
  // new or existing (unless an existing one finished in that instant), in the order the leads were given.
  const byLead = new Map(active.map((row) => [row.leadId, row]));
  return uniqueLeadIds.flatMap((leadId) => {
    const row = byLead.get(leadId);
    return row ? [toEnrollment(row)] : [];
  });
}

/** Stops an enrollment: its future steps do not run (a queued job finds it stopped and does nothing). */
export async function stopEnrollment(
  deps: LeadsDeps,
  identity: Identity,
  where: { sequenceId: string; enrollmentId?: string; leadId?: string },
  reason = 'unenrolled',
): Promise<Enrollment> {
  const orgId = identity.org_id;
  await findSequence(deps.prisma, orgId, where.sequenceId, 'sequence_id');
  const row = where.enrollmentId
    ? await findEnrollment(deps.prisma, orgId, { id: where.enrollmentId, sequenceId: where.sequenceId }, 'enrollment_id')
    : await findEnrollment(deps.prisma, orgId, { sequenceId: where.sequenceId, leadId: where.leadId ?? '', status: 'active' }, 'lead_id');
  if (row.status !== 'active') {
    throw new ApiError('conflict', `The enrollment is already ${row.status}.`, { param: where.enrollmentId ? 'enrollment_id' : 'lead_id' });
  }
  return withEvents(deps, async (tx, events) => {
    const stopped = await stopEnrollmentRow(tx, orgId, row.id, reason, new Date());
    const after = toEnrollment(await findEnrollment(tx, orgId, { id: row.id }, 'enrollment_id'));
    if (!stopped) throw new ApiError('conflict', `The enrollment is already ${after.status}.`, { param: 'enrollment_id' });
    events.add('enrollment.stopped', orgId, after, { aggregateId: row.id });
    return after;
  });
}

export async function getEnrollment(deps: LeadsDeps, identity: Identity, sequenceId: string, enrollmentId: string): Promise<Enrollment> {
  const orgId = identity.org_id;
  await findSequence(deps.prisma, orgId, sequenceId, 'sequence_id');
  return toEnrollment(await findEnrollment(deps.prisma, orgId, { id: enrollmentId, sequenceId }, 'enrollment_id'));
}

export async function listEnrollmentsOf(
  deps: LeadsDeps,
  identity: Identity,
  query: ListEnrollmentsQuery & { sequence_id?: string | undefined },
) {
  const orgId = identity.org_id;
  if (query.sequence_id) await findSequence(deps.prisma, orgId, query.sequence_id, 'sequence_id');
  if (query.lead_id) await findLead(deps.prisma, orgId, query.lead_id, 'lead_id');
  return listEnrollments(deps.prisma, orgId, query);
}
