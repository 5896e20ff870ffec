import { ApiError, eventId, newId, type PendingEvents } from '@voice/kit';
import { type CreateLead, type Identity, type Lead, type LeadDetail, type LeadNote, telephonyRpc, type UpdateLead } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import { latestEnrollmentsOfLead } from '../store/enrollments.js';
import { deleteLeadRow, findLead, findLeadIfAny, insertLead, insertLeadNote, listLeadNotes, updateLeadWhere } from '../store/leads.js';
import { assertWorkspace } from '../store/references.js';
import { type LeadsTx, withEvents } from './events.js';
import { toEnrollment, toLead, toLeadNote } from './records.js';

/** Tags compare as written, after trimming; duplicates collapse. */
const normalizeTags = (tags: string[]) => [...new Set(tags.map((tag) => tag.trim()))];

/** How long the lead detail waits for telephony's call list before it answers without it. */
const callsTimeoutMs = 1_500;

export async function createLead(deps: LeadsDeps, identity: Identity, input: CreateLead): Promise<Lead> {
  const orgId = identity.org_id;
  if (!input.name && !input.phone && !input.email) {
    throw new ApiError('invalid_request', 'A lead needs at least a name, a phone number or an email address.', { param: 'name' });
  }
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const now = new Date();
  return withEvents(deps, async (tx, events) => {
    const row = await insertLead(
      tx,
      orgId,
      {
        id: newId('lead'),
        workspaceId: input.workspace_id ?? null,
        name: input.name ?? null,
        phone: input.phone ?? null,
        email: input.email?.toLowerCase() ?? null,
        company: input.company ?? null,
        status: input.status,
        qualifiedAt: input.status === 'qualified' || input.status === 'won' ? now : null,
        source: input.source,
        tags: normalizeTags(input.tags),
        owner: input.owner ?? null,
        customFields: input.custom_fields,
        nextAction: input.next_action ?? null,
        nextActionAt: input.next_action_at ? new Date(input.next_action_at) : null,
      },
      input.note ? { id: newId('note'), body: input.note } : undefined,
    );
    const lead = toLead(row);
    events.add('lead.created', orgId, lead, { aggregateId: lead.id });
    return lead;
  });
}

export async function getLeadDetail(deps: LeadsDeps, identity: Identity, id: string): Promise<LeadDetail> {
  const orgId = identity.org_id;
  const row = await findLead(deps.prisma, orgId, id);
  const [notes, enrollments, recentCalls] = await Promise.all([
    listLeadNotes(deps.prisma, orgId, id, { limit: 20 }),
    latestEnrollmentsOfLead(deps.prisma, orgId, id, 20),
    // The lead is ours, its calls are telephony's: a slow or absent telephony degrades the detail, not the read.
    deps.bus
      .call(telephonyRpc.listCalls, identity, { lead_id: id, limit: 5 }, { timeoutMs: callsTimeoutMs })
      .then((page) => page.data)
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, lead_id: id }, 'lead detail without calls: telephony did not answer');
        return null;
      }),
  ]);
  return { ...toLead(row), notes: notes.data, enrollments: enrollments.map(toEnrollment), recent_calls: recentCalls };
}

export async function updateLead(deps: LeadsDeps, identity: Identity, id: string, input: UpdateLead): Promise<Lead> {
  const orgId = identity.org_id;
  const before = await findLead(deps.prisma, orgId, id);
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const pick = <T>(next: T | undefined, current: T) => (next === undefined ? current : next);
  if (!pick(input.name, before.name) && !pick(input.phone, before.phone) && !pick(input.email, before.email)) {
    throw new ApiError('invalid_request', 'A lead needs at least a name, a phone number or an email address.', { param: 'name' });
  }
  const becomesQualified = (input.status === 'qualified' || input.status === 'won') && before.qualifiedAt === null;
  return withEvents(deps, async (tx, events) => {
    const after = await updateLeadWhere(
      tx,
      orgId,
      id,
      {},
      {
        ...(input.workspace_id !== undefined ? { workspaceId: input.workspace_id } : {}),
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.phone !== undefined ? { phone: input.phone } : {}),
        ...(input.email !== undefined ? { email: input.email?.toLowerCase() ?? null } : {}),
        ...(input.company !== undefined ? { company: input.company } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(becomesQualified ? { qualifiedAt: new Date() } : {}),
        ...(input.source !== undefined ? { source: input.source } : {}),
        ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
        ...(input.owner !== undefined ? { owner: input.owner } : {}),
        ...(input.custom_fields !== undefined ? { customFields: input.custom_fields } : {}),
        ...(input.next_action !== undefined ? { nextAction: input.next_action } : {}),
        ...(input.next_action_at !== undefined ? { nextActionAt: input.next_action_at ? new Date(input.next_action_at) : null } : {}),
      },
    );
    if (!after) throw new ApiError('not_found', 'No such lead.', { param: 'id' });
    const lead = toLead(after);
    events.add('lead.updated', orgId, { ...lead, changed: Object.keys(input) }, { aggregateId: id });
    if (becomesQualified) events.add('lead.qualified', orgId, { ...lead, call_id: null }, { aggregateId: id });
    return lead;
  });
}

/** Deletes the lead with its notes and enrollments; invoices and projects keep existing without the customer link. */
export async function deleteLead(deps: LeadsDeps, identity: Identity, id: string) {
  return withEvents(deps, async (tx, events) => {
    await deleteLeadRow(tx, identity.org_id, id);
    events.add('lead.deleted', identity.org_id, { id, object: 'lead' }, { aggregateId: id });
    return { id, object: 'lead' as const, deleted: true as const };
  });
}

export async function addLeadNote(
  deps: LeadsDeps,
  identity: Identity,
  leadId: string,
  input: { body: string; author?: string | null | undefined },
): Promise<LeadNote> {
  const orgId = identity.org_id;
  await findLead(deps.prisma, orgId, leadId);
  const row = await insertLeadNote(deps.prisma, orgId, { id: newId('note'), leadId, body: input.body, author: input.author ?? null });
  return toLeadNote(row);
}

export async function getLeadNotes(
  deps: LeadsDeps,
  identity: Identity,
  leadId: string,
  query: { limit: number; cursor?: string | undefined },
) {
  await findLead(deps.prisma, identity.org_id, leadId);
  return listLeadNotes(deps.prisma, identity.org_id, leadId, query);
}

/**
 * A call or message reached the lead: remember when, and a new lead becomes contacted. The status change
 * is announced (`lead.updated`) the one time it happens, in the caller's transaction; `cause` names what
 * contacted the lead, so a retried cause records the same event id.
 */
export async function markContacted(
  tx: LeadsTx,
  events: PendingEvents,
  orgId: string,
  leadId: string,
  at: Date,
  cause: string,
): Promise<void> {
  const contacted = await updateLeadWhere(tx, orgId, leadId, { status: 'new' }, { status: 'contacted', lastContactedAt: at });
  await updateLeadWhere(tx, orgId, leadId, { OR: [{ lastContactedAt: null }, { lastContactedAt: { lt: at } }] }, { lastContactedAt: at });
  if (contacted) {
    events.add(
      'lead.updated',
      orgId,
      { ...toLead(contacted), changed: ['status', 'last_contacted_at'] },
      { id: eventId(`contacted:${cause}`), aggregateId: leadId },
    );
  }
}

export interface CallOutcome {
  call_id: string;
  lead_id: string;
  outcome: string | null;
  ended_at: Date;
}

/**
 * Telephony finished a call with a lead. Outcome `qualified_lead` qualifies it, once: the first such call
 * sets `qualified_at` and is remembered, so the same event delivered again changes nothing and records
 * only duplicates of the same events (same ids), which JetStream drops.
 */
export async function recordCallOutcome(deps: LeadsDeps, orgId: string, call: CallOutcome): Promise<void> {
  const existing = await findLeadIfAny(deps.prisma, orgId, call.lead_id);
  if (!existing) return; // deleted, or not a lead of this organization
  await withEvents(deps, async (tx, events) => {
    await markContacted(tx, events, orgId, call.lead_id, call.ended_at, call.call_id);
    if (call.outcome !== 'qualified_lead') return;
    if (existing.qualifiedAt !== null && existing.qualifiedByCallId !== call.call_id) return;
    const qualified =
      existing.qualifiedByCallId === call.call_id
        ? existing
        : await updateLeadWhere(
            tx,
            orgId,
            call.lead_id,
            { qualifiedAt: null },
            // A won lead stays won; any other status becomes qualified.
            { qualifiedAt: new Date(), qualifiedByCallId: call.call_id, ...(existing.status === 'won' ? {} : { status: 'qualified' }) },
          );
    if (!qualified) return; // qualified by someone else in between
    const lead = toLead(qualified);
    const aggregateId = call.lead_id;
    events.add('lead.updated', orgId, { ...lead, changed: ['status'] }, { id: eventId(`lead.updated:${call.call_id}`), aggregateId });
    events.add('lead.qualified', orgId, { ...lead, call_id: call.call_id }, { id: eventId(`lead.qualified:${call.call_id}`), aggregateId });
  });
}
