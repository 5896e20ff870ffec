import { ApiError, eventId, newId } from '@voice/kit';
import { type BullmqWorker, startBullmqWorker } from '@voice/kit/bullmq';
import { type EnrollmentStepResult, type Identity, planSchema, type SequenceStep, telephonyRpc } from '@voice/proto';
import type { Job } from 'bullmq';
import type { LeadsDeps } from '../deps.js';
import { withEvents } from '../domain/events.js';
import { markContacted } from '../domain/leads.js';
import { enrollmentHistory, sequenceSteps, toEnrollment } from '../domain/records.js';
import type { Lead as LeadRow } from '../generated/prisma/client.js';
import { advanceEnrollment, findEnrollmentForRun } from '../store/enrollments.js';
import { type StepJobData, scheduleStep, stepAttempts, stepQueueName } from './queue.js';

/**
 * Errors after which a step is recorded as failed rather than retried: retrying would fail the same way.
 * `conflict` is not one: telephony answers it while an earlier attempt with the same idempotency key is
 * still in progress, and the retry then gets that attempt's result.
 */
const permanentCodes = new Set([
  'invalid_request',
  'not_found',
  'forbidden',
  'forbidden_scope',
  'plan_required',
  'idempotency_conflict',
  'quota_exceeded',
]);

/** `{{name}}`, `{{first_name}}` and `{{company}}` in an SMS step, filled from the lead (empty when unknown). */
export function renderTemplate(template: string, lead: Pick<LeadRow, 'name' | 'company'>): string {
  const values: Record<string, string> = {
    name: lead.name ?? '',
    first_name: lead.name?.trim().split(/\s+/)[0] ?? '',
    company: lead.company ?? '',
  };
  return template.replace(/\{\{\s*(name|first_name|company)\s*\}\}/g, (_match, key: string) => values[key] ?? '');
}

type StepRun = Omit<EnrollmentStepResult, 'step' | 'type' | 'at'>;

const done = (ids: { call_id?: string; sms_id?: string } = {}): StepRun => ({
  outcome: 'done',
  reason: null,
  call_id: ids.call_id ?? null,
  sms_id: ids.sms_id ?? null,
});
const notDone = (outcome: 'skipped' | 'failed', reason: string): StepRun => ({ outcome, reason, call_id: null, sms_id: null });

/**
 * Runs one step against telephony. The idempotency key names the enrollment and the step, so a retried
 * job never queues a second call or message. A number on the do-not-call list skips the step, with the
 * reason recorded; the sequence goes on (a later step may use a channel the entry allows).
 */
async function runStep(
  deps: LeadsDeps,
  identity: Identity,
  job: Job<StepJobData>,
  step: SequenceStep,
  context: { lead: LeadRow; workspaceId: string | null; sequenceId: string },
): Promise<StepRun> {
  if (step.type === 'wait') return done();
  const { lead } = context;
  if (!lead.phone) return notDone('skipped', 'no_phone');
  const common = {
    to: lead.phone,
    lead_id: lead.id,
    ...(context.workspaceId ? { workspace_id: context.workspaceId } : {}),
    source: 'sequence' as const,
    metadata: { ...step.metadata, enrollment_id: job.data.enrollment_id, sequence_id: context.sequenceId, step: job.data.step },
    idempotency_key: `sequence:${job.data.enrollment_id}:${job.data.step}`,
  };
  const options = { timeoutMs: deps.env.TELEPHONY_TIMEOUT_MS };
  try {
    if (step.type === 'call') {
      const call = await deps.bus.call(telephonyRpc.queueCall, identity, common, options);
      return done({ call_id: call.id });
    }
    const sms = await deps.bus.call(telephonyRpc.sendSms, identity, { ...common, body: renderTemplate(step.body, lead) }, options);
    return done({ sms_id: sms.id });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'dnc_blocked') return notDone('skipped', 'dnc_blocked');
    if (permanentCodes.has(error.code)) return notDone('failed', `${error.code}: ${error.message}`);
    // Telephony unavailable or failing: retry with back-off; the last attempt records the failure and moves on.
    if (job.attemptsMade + 1 < stepAttempts) throw error;
    return notDone('failed', `${error.code}: ${error.message}`);
  }
}

/** Processes one step job: run the step, record it, schedule the next or complete the enrollment. */
export async function processStepJob(deps: LeadsDeps, job: Job<StepJobData>): Promise<void> {
  const { org_id: orgId, enrollment_id: enrollmentId, step: index } = job.data;
  const enrollment = await findEnrollmentForRun(deps.prisma, orgId, enrollmentId);
  if (enrollment?.status !== 'active') return; // stopped, completed or deleted: nothing more to run
  const steps = sequenceSteps(enrollment);
  if (enrollment.currentStep > index) {
    // An earlier attempt recorded this step and then lost the enqueue of the next: schedule it again (same job id).
    const delaySeconds = Math.max(
      0,
      ((enrollment.nextStepAt?.getTime() ?? Date.now()) - Date.now()) / 1000 / (deps.env.SEQUENCE_DELAY_SCALE || 1),
    );
    await scheduleStep(deps.stepQueue, deps.env, {
      org_id: orgId,
      enrollment_id: enrollmentId,
      step: enrollment.currentStep,
      delaySeconds,
    });
    return;
  }
  if (enrollment.currentStep < index) return; // a stale job of a step not reached yet; the real one is scheduled
  const step = steps[index];
  const identity: Identity = {
    org_id: orgId,
    key_id: enrollment.enrolledByKeyId,
    scope: 'read-write',
    plan: planSchema.catch('starter').parse(enrollment.enrolledByPlan),
    request_id: newId('request'),
    monthly_used: 0,
    monthly_quota: 0,
  };
  const run: StepRun = step
    ? await runStep(deps, identity, job, step, {
        lead: enrollment.lead,
        workspaceId: enrollment.lead.workspaceId ?? enrollment.sequence.workspaceId,
        sequenceId: enrollment.sequenceId,
      })
    : notDone('skipped', 'step_missing');
  const now = new Date();
  const result: EnrollmentStepResult = { step: index, type: step?.type ?? 'wait', at: now.toISOString(), ...run };
  const next = steps[index + 1];
  const last = next === undefined;
  const advanced = await withEvents(deps, async (tx, events) => {
    const row = await advanceEnrollment(tx, orgId, enrollmentId, index, {
      currentStep: index + 1,
      history: [...enrollmentHistory(enrollment), result],
      nextStepAt: last ? null : new Date(now.getTime() + next.delay_seconds * 1000 * deps.env.SEQUENCE_DELAY_SCALE),
      ...(last ? { status: 'completed' as const, activeSlot: null, completedAt: now } : {}),
    });
    if (!row) return null; // stopped while the step ran
    if (run.outcome === 'done' && step?.type !== 'wait') {
      await markContacted(tx, events, orgId, enrollment.leadId, now, `${enrollmentId}:${index}`);
    }
    if (last) {
      events.add('enrollment.completed', orgId, toEnrollment(row), {
        id: eventId(`enrollment.completed:${enrollmentId}`),
        aggregateId: enrollmentId,
      });
    }
    return row;
  });
  if (!advanced || last) return;
  await scheduleStep(deps.stepQueue, deps.env, {
    org_id: orgId,
    enrollment_id: enrollmentId,
    step: index + 1,
    delaySeconds: next.delay_seconds,
  });
}

/** The worker that runs sequence steps (kit's supervised BullMQ worker); close it on shutdown so in-flight steps finish. */
export function startStepWorker(deps: LeadsDeps): BullmqWorker<StepJobData> {
  return startBullmqWorker<StepJobData>({
    queue: stepQueueName,
    processor: (job) => processStepJob(deps, job),
    env: deps.env,
    logger: deps.logger,
    options: { concurrency: deps.env.SEQUENCE_WORKER_CONCURRENCY },
    failures: { fields: (job) => ({ enrollment_id: job.data.enrollment_id, step: job.data.step }) },
  });
}
