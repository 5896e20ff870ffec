import { ApiError, type Bus, type Logger } from '@voice/kit';
import {
  type CreateLead,
  type ListLeadsQuery,
  leadSources,
  leadStatuses,
  leadsRpc,
  type RecentLeadsQuery,
  telephonyRpc,
  type UpdateLead,
  webhooksRpc,
} from '@voice/proto';
import { z } from 'zod';
import { blankIsAny, daysAndPage, firstDayFirst, firstDayFirstRefusal, pageCursor, trimmed } from './calls.js';
import { afterTheFirst, audited, isFormKey } from './console-actions.js';
import { dayStart } from './days.js';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** Rows of one page of the leads list. */
export const leadsPageSize = 25;
/** How many of a lead's latest messages, sequences, invoices and projects its page shows. */
export const leadPageItems = 5;
/** "Recent qualified leads": what `service_recent_leads` answers for an agent asking about the last week. */
export const recentQualifiedHours = 168;

const leadIdPattern = /^lead_[0-9A-Za-z]{8,40}$/;
export const leadParams = z.object({ id: z.string().regex(leadIdPattern) });

/**
 * The leads list's filters as its GET form sends them: `q` (text in the name, e-mail, phone or company),
 * `status`, `qualified` (`yes` or `no`), `source`, `workspace_id`, `from` and `to` (whole days in the
 * person's time zone, both included) and `cursor`. Empty values mean "any"; a malformed one is a 400 page.
 */
export const leadFilterSchema = z
  .object({
    q: z.preprocess(
      (value) => blankIsAny(trimmed(value)),
      z.string().max(200, 'Search with at most 200 characters: a name, a number or an e-mail address.').optional(),
    ),
    status: z.preprocess(blankIsAny, z.enum(leadStatuses, 'Choose a status from the list.').optional()),
    qualified: z.preprocess(blankIsAny, z.enum(['yes', 'no'], 'Choose qualified or not qualified.').optional()),
    source: z.preprocess(blankIsAny, z.enum(leadSources, 'Choose a source from the list.').optional()),
    workspace_id: z.preprocess(
      (value) => blankIsAny(trimmed(value)),
      z
        .string()
        .regex(/^ws_[0-9A-Za-z]{8,40}$/, 'A workspace id looks like ws_ followed by 8 to 40 letters and digits.')
        .optional(),
    ),
    ...daysAndPage,
  })
  .refine(firstDayFirst, firstDayFirstRefusal);
export type LeadFilters = z.output<typeof leadFilterSchema>;

/** The filter names in the order the form shows them (and links write them). */
export const leadFilterNames = ['q', 'status', 'qualified', 'source', 'workspace_id', 'from', 'to'] as const;

/** The saved view's only parameter is its page. */
export const recentQualifiedSchema = z.object({ cursor: pageCursor });

/** The leads service's list query for the filters: `from`..`to` are whole days in the person's time zone. */
export function leadQueryOf(filters: LeadFilters, timeZone: string, limit: number): ListLeadsQuery {
  const { from, to, cursor, qualified, q, status, source, workspace_id } = filters;
  return {
    ...(q ? { q } : {}),
    ...(status ? { status } : {}),
    ...(qualified ? { qualified: qualified === 'yes' } : {}),
    ...(source ? { source } : {}),
    ...(workspace_id ? { workspace_id } : {}),
    ...(from ? { created_after: dayStart(from, timeZone) } : {}),
    ...(to ? { created_before: dayStart(to, timeZone, 1) } : {}),
    ...(cursor ? { cursor } : {}),
    limit,
  };
}

/** The filters as a query string, with a cursor when given: links to other pages of the list and the CSV. */
export function leadQueryString(filters: LeadFilters, cursor?: string | null): string {
  const entries = leadFilterNames.flatMap((name) => {
    const value = filters[name];
    return value === undefined ? [] : [[name, value] as [string, string]];
  });
  if (cursor) entries.push(['cursor', cursor]);
  return new URLSearchParams(entries).toString();
}

const text = (max: number) => z.preprocess(trimmed, z.string().max(max, `Write at most ${max} characters.`).default(''));

/**
 * A lead form's fields as typed. Only the form's shape is checked here (text of bounded length); what the
 * values must be (an e-mail address, a number in international form) is the operation's to say, and its
 * refusal appears on the field it names.
 */
export const leadFormSchema = z.object({
  name: text(400),
  phone: z.preprocess((value) => (typeof value === 'string' ? value.replace(/[\s().-]/g, '') : value), z.string().max(64).default('')),
  email: text(640),
  company: text(400),
  status: z.preprocess(blankIsAny, z.enum(leadStatuses, 'Choose a status from the list.').default('new')),
  source: z.preprocess(blankIsAny, z.enum(leadSources, 'Choose a source from the list.').default('web')),
  workspace_id: text(64),
  owner: text(400),
  tags: text(1000),
  next_action: text(1000),
});
export type LeadForm = z.output<typeof leadFormSchema>;
export const newLeadFormSchema = leadFormSchema.extend({
  note: text(20_000),
  form_key: z.string().refine(isFormKey, 'The form is damaged; open it again.'),
});
export type NewLeadForm = z.output<typeof newLeadFormSchema>;

const orNull = (value: string) => (value === '' ? null : value);

/** The form's values as the operation's fields: an empty field is "none" (null), tags are comma-separated. */
export function leadFieldsOf(form: LeadForm) {
  return {
    name: orNull(form.name),
    phone: orNull(form.phone),
    email: orNull(form.email),
    company: orNull(form.company),
    status: form.status,
    source: form.source,
    workspace_id: orNull(form.workspace_id),
    owner: orNull(form.owner),
    tags: form.tags
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    next_action: orNull(form.next_action),
  } satisfies UpdateLead;
}

/** The form a lead's edit page starts from: its values as typed text. */
export function leadFormOf(lead: {
  name: string | null;
  phone: string | null;
  email: string | null;
  company: string | null;
  status: LeadForm['status'];
  source: LeadForm['source'];
  workspace_id: string | null;
  owner: string | null;
  tags: string[];
  next_action: string | null;
}): LeadForm {
  return {
    name: lead.name ?? '',
    phone: lead.phone ?? '',
    email: lead.email ?? '',
    company: lead.company ?? '',
    status: lead.status,
    source: lead.source,
    workspace_id: lead.workspace_id ?? '',
    owner: lead.owner ?? '',
    tags: lead.tags.join(', '),
    next_action: lead.next_action ?? '',
  };
}

/** The field of the form an operation's refusal is about: `tags.2` is the tags field. */
export const formFieldOf = (param: string | undefined) => param?.split('.')[0];

export const noteFormSchema = z.object({
  body: z.preprocess(trimmed, z.string().max(20_000, 'Write at most 10,000 characters.').default('')),
  form_key: z.string().refine(isFormKey, 'The form is damaged; open it again.'),
});

const sequenceId = z.string().regex(/^seq_[0-9A-Za-z]{8,40}$/, 'Choose a sequence from the list.');
export const enrollFormSchema = z.object({ sequence_id: sequenceId });
/** At most what one enroll operation takes (`enrollLeadsSchema`: 100), so one submit is one operation. */
export const enrollManyMax = 100;
export const enrollManyFormSchema = z.object({
  sequence_id: sequenceId,
  lead_id: z
    .array(z.string().regex(leadIdPattern, 'A chosen lead is not a lead id; choose again from the list.'))
    .min(1, 'Choose at least one lead with its checkbox.')
    .max(enrollManyMax, `Choose at most ${enrollManyMax} leads at a time.`),
});

/**
 * The leads service's operations a leads page needs, with telephony's and webhooks' reads about a lead, for
 * one person and request: the same NATS operations the API and MCP use, with the person's identity (`read`
 * for members, so the service itself refuses their changes). Changes are audited with the person as actor.
 */
export async function leadsFor(ctx: { bus: Bus; logger: Logger }, signedIn: SignedIn, requestId: string) {
  const { organization, identity } = await personOnGateway(ctx, signedIn, requestId);
  /** The form's key, tied to the person, as the operation's idempotency key: a second submit is the first. */
  const onceKey = (formKey: string) => `console:${signedIn.user.id}:${formKey}`;
  return {
    organization,
    list: (query: ListLeadsQuery) => ctx.bus.call(leadsRpc.listLeads, identity, query),
    recent: (query: RecentLeadsQuery) => ctx.bus.call(leadsRpc.recentLeads, identity, query),
    get: (id: string) => ctx.bus.call(leadsRpc.getLead, identity, { id }),
    create: (input: Omit<CreateLead, 'custom_fields' | 'tags' | 'status' | 'source'> & Partial<CreateLead>, formKey: string) =>
      audited(ctx, identity, { path: '/dashboard/leads', status: 201 }, () =>
        afterTheFirst(() =>
          ctx.bus.call(leadsRpc.createLead, identity, {
            custom_fields: {},
            tags: [],
            status: 'new',
            source: 'web',
            ...input,
            idempotency_key: onceKey(formKey),
          }),
        ),
      ),
    update: (id: string, input: UpdateLead) =>
      audited(ctx, identity, { path: `/dashboard/leads/${id}/edit`, status: 200 }, () =>
        ctx.bus.call(leadsRpc.updateLead, identity, { id, ...input }),
      ),
    /**
     * Deletes the lead with its personal data. The operation is one an agent may only ask a person to
     * approve (`approval: true`); a person's confirmation on the console's page is that approval.
     */
    delete: (id: string) =>
      audited(ctx, identity, { path: `/dashboard/leads/${id}/delete`, status: 200 }, () =>
        ctx.bus.call(leadsRpc.deleteLead, identity, { id }),
      ),
    addNote: (id: string, body: string, formKey: string) =>
      audited(ctx, identity, { path: `/dashboard/leads/${id}/notes`, status: 201 }, () =>
        afterTheFirst(() =>
          ctx.bus.call(leadsRpc.addLeadNote, identity, { id, body, author: signedIn.user.name, idempotency_key: onceKey(formKey) }),
        ),
      ),
    /** Enrolls leads in a sequence; a lead already active in it keeps its enrollment (so a double submit adds none). */
    enroll: (sequenceId: string, leadIds: string[], path: string) =>
      audited(ctx, identity, { path, status: 201 }, () =>
        ctx.bus.call(leadsRpc.enroll, identity, { sequence_id: sequenceId, lead_ids: leadIds }),
      ),
    sequences: () => ctx.bus.call(leadsRpc.listSequences, identity, { limit: 100 }),
    invoices: (leadId: string) => ctx.bus.call(leadsRpc.listInvoices, identity, { lead_id: leadId, limit: leadPageItems }),
    projects: (leadId: string) => ctx.bus.call(leadsRpc.listProjects, identity, { lead_id: leadId, limit: leadPageItems }),
    messages: (leadId: string) => ctx.bus.call(telephonyRpc.listSms, identity, { lead_id: leadId, limit: leadPageItems }),
    /** The lead's calls counted since the lead was added: what MCP's `service_call_stats` answers for a lead. */
    callStats: (lead: { id: string; created_at: string }) =>
      ctx.bus.call(telephonyRpc.callStats, identity, { lead_id: lead.id, created_after: lead.created_at }),
    /** The lead's events that went to webhook endpoints, with their deliveries. */
    events: (id: string) => ctx.bus.call(webhooksRpc.listRecordEvents, identity, { record_id: id }),
  };
}
export type OrganizationLeads = Awaited<ReturnType<typeof leadsFor>>;

/** A refusal a page cannot put on a form is an error page; this says whether one is a person's to fix. */
export const isRefusal = (error: unknown): error is ApiError => error instanceof ApiError && error.status < 500;
