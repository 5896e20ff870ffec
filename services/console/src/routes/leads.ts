import type { ApiError, Bus } from '@voice/kit';
import { type Lead, leadsRpc, telephonyRpc } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import {
  enrollFormSchema,
  enrollManyFormSchema,
  formFieldOf,
  isRefusal,
  type LeadForm,
  leadFieldsOf,
  leadFilterSchema,
  leadFormOf,
  leadFormSchema,
  leadParams,
  leadQueryOf,
  leadsFor,
  leadsPageSize,
  newLeadFormSchema,
  noteFormSchema,
  type OrganizationLeads,
  recentQualifiedHours,
  recentQualifiedSchema,
} from '../domain/leads.js';
import { checkedQuery } from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import { csvOfPages } from '../http/csv.js';
import { flash } from '../http/flash.js';
import { formOf, formWithListOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import type { FieldErrors } from '../views/components.js';
import { deleteLeadConfirmPage, leadFormPage, leadHref, leadPage, leadsListPage, leadsPath, recentQualifiedPage } from '../views/leads.js';

const csvColumns = [
  'created_at',
  'id',
  'name',
  'phone',
  'email',
  'company',
  'status',
  'qualified_at',
  'source',
  'workspace_id',
  'owner',
  'tags',
  'next_action',
  'last_contacted_at',
] as const;

function csvCells(lead: Lead): (string | number | null)[] {
  const cells: Record<(typeof csvColumns)[number], string | null> = { ...lead, tags: lead.tags.join(', ') };
  return csvColumns.map((column) => cells[column]);
}

/** The lead form's fields the leads service names in a refusal (`param`). */
const formFields = new Set([
  'name',
  'phone',
  'email',
  'company',
  'status',
  'source',
  'workspace_id',
  'owner',
  'tags',
  'next_action',
  'note',
]);

/** The refusals a person can act on, in words, by the field the operation names. */
function refusalText(error: ApiError, field: string | undefined): string {
  if (error.code === 'invalid_request') {
    if (field === 'phone') return 'Enter the number in international form: + and the country code, then the number, e.g. +14155550123.';
    if (field === 'email') return 'Enter an e-mail address, e.g. ada@example.com.';
    if (field === 'workspace_id') return 'A workspace id looks like ws_ followed by letters and digits.';
    if (field === 'tags') return 'Tags are separated by commas, each at most 40 characters, at most 20 tags.';
  }
  if (error.code === 'not_found' && field === 'workspace_id') return 'This organization has no workspace with this id.';
  return error.message;
}

/** How a refusal shows on a form: on the field it names, or above the form. */
function onForm(error: ApiError): { errors?: FieldErrors; error?: string } {
  const field = formFieldOf(error.param);
  return field && formFields.has(field) ? { errors: { [field]: refusalText(error, field) } } : { error: refusalText(error, field) };
}

/** Another organization's lead, or one deleted meanwhile, is a 404 page whatever the action. */
const isMissingLead = (error: ApiError) => error.code === 'not_found' && (error.param === undefined || error.param === 'id');

/** Where a bulk enroll goes back to: the list it was posted from (with its filters), never another site. */
function listAddress(returnTo: string | undefined): string {
  return returnTo && /^\/dashboard\/leads(?:\?[^\s]*)?$/.test(returnTo) ? returnTo : leadsPath;
}

/**
 * The leads list (filters, search, pages both ways, CSV), the "recent qualified leads" view, a lead's page
 * (notes, calls, messages, sequences, invoices, projects, webhook events), adding, editing, deleting after a
 * confirmation page, notes, and enrolling one lead or many in a sequence. Leads are the leads service's:
 * every page and action is a NATS call for the signed-in person (read for members, read-write for owners and
 * admins), the operations the API and MCP use, so they fire the same events and webhooks; changes are
 * audited with the person as actor.
 */
export function leadRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const serviceFor = (request: FastifyRequest) => leadsFor(ctx, signedInOf(request), request.id);
  /** A part of a page that stands without its service: its section says the service did not answer. */
  const orMissing = <T>(request: FastifyRequest, what: string, work: Promise<T>) =>
    work.catch((error: unknown) => {
      request.log.warn({ err: error }, `${what} of the lead not read`);
      return undefined;
    });
  /** The sequences a manager may enroll leads in (members get none: they cannot enroll). */
  const sequencesFor = async (request: FastifyRequest, service: OrganizationLeads) =>
    canManage(signedInOf(request).role) ? (await service.sequences()).data : [];

  app.get('/leads', { config: { access: 'signed-in', operation: leadsRpc.listLeads } }, async (request, reply) => {
    const filters = checkedQuery(leadFilterSchema, request.query);
    const signedIn = signedInOf(request);
    const service = await serviceFor(request);
    const [leads, sequences] = await Promise.all([
      service.list(leadQueryOf(filters, signedIn.user.timeZone, leadsPageSize)),
      sequencesFor(request, service),
    ]);
    return sendPage(reply, 200, leadsListPage(signedIn, { filters, leads, sequences, here: request.url }));
  });

  app.get('/leads/recent-qualified', { config: { access: 'signed-in', operation: leadsRpc.recentLeads } }, async (request, reply) => {
    const { cursor } = checkedQuery(recentQualifiedSchema, request.query);
    const leads = await (await serviceFor(request)).recent({
      since_hours: recentQualifiedHours,
      qualified_only: true,
      limit: leadsPageSize,
      ...(cursor ? { cursor } : {}),
    });
    return sendPage(reply, 200, recentQualifiedPage(signedInOf(request), { leads, first: cursor === undefined }));
  });

  app.get('/leads/export.csv', { config: { access: 'signed-in', operation: leadsRpc.listLeads } }, async (request, reply) => {
    const { cursor: _ignored, ...filters } = checkedQuery(leadFilterSchema, request.query);
    const service = await serviceFor(request);
    const timeZone = signedInOf(request).user.timeZone;
    const text = await csvOfPages(
      csvColumns,
      (cursor, limit) => service.list(leadQueryOf({ ...filters, cursor }, timeZone, limit)),
      csvCells,
    );
    return reply
      .status(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="leads-${service.organization.id}.csv"`)
      .send(text);
  });

  const formPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    view: { leadId?: string; values?: Partial<LeadForm> & { note?: string }; errors?: FieldErrors; error?: string | undefined },
  ) =>
    sendPage(
      reply,
      status,
      leadFormPage(signedInOf(request), {
        ...(view.leadId ? { leadId: view.leadId } : { formKey: newFormKey() }),
        values: { ...leadFormSchema.parse({}), ...view.values },
        errors: view.errors ?? {},
        error: view.error,
      }),
    );

  app.get('/leads/new', { config: { access: 'manager' } }, async (request, reply) => {
    return formPage(request, reply, 200, {});
  });

  app.post('/leads', { config: { access: 'manager', operation: leadsRpc.createLead } }, async (request, reply) => {
    const parsed = newLeadFormSchema.safeParse(formOf(request.body));
    if (!parsed.success) return formPage(request, reply, 400, { error: parsed.error.issues[0]?.message ?? 'Check the form.' });
    const { form_key: formKey, note, ...form } = parsed.data;
    const service = await serviceFor(request);
    let lead: Lead;
    try {
      // A double submit's second request waits for the first's answer: the same lead.
      lead = await service.create({ ...leadFieldsOf(form), ...(note ? { note } : {}) }, formKey);
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return formPage(request, reply, error.status, { values: { ...form, note }, ...onForm(error) });
    }
    flash(request, reply, ctx.env, 'lead-created');
    return reply.redirect(leadHref(lead.id), 303);
  });

  // Before `/leads/:id`'s POSTs: a path of its own, whose form sends `lead_id` once per chosen lead.
  app.post(
    '/leads/enroll',
    { config: { access: 'manager', operation: leadsRpc.enroll, repeatedField: 'lead_id' } },
    async (request, reply) => {
      const { fields, list } = formWithListOf(request.body, 'lead_id');
      const form = checkedQuery(enrollManyFormSchema, { sequence_id: fields.sequence_id, lead_id: list });
      // Refusals (a sequence or lead of another organization, 404) are error pages in words.
      await (await serviceFor(request)).enroll(form.sequence_id, [...new Set(form.lead_id)], `${leadsPath}/enroll`);
      flash(request, reply, ctx.env, 'leads-enrolled');
      return reply.redirect(listAddress(fields.return_to), 303);
    },
  );

  async function showLead(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    status = 200,
    refusal: { noteError?: string; enrollError?: string } = {},
  ) {
    const service = await serviceFor(request);
    const [lead, messages, invoices, projects, events, sequences] = await Promise.all([
      service.get(id).then(async (found) => ({ ...found, stats: await orMissing(request, 'call statistics', service.callStats(found)) })),
      orMissing(request, 'messages', service.messages(id)),
      orMissing(request, 'invoices', service.invoices(id)),
      orMissing(request, 'projects', service.projects(id)),
      orMissing(request, 'webhook events', service.events(id)),
      // Names for the enrollments; everyone reads them, managers also pick one to enroll in.
      service.sequences().then((page) => page.data),
    ]);
    return sendPage(
      reply,
      status,
      leadPage(signedInOf(request), {
        lead,
        callStats: lead.stats,
        messages,
        invoices,
        projects,
        events,
        sequences,
        noteFormKey: newFormKey(),
        ...refusal,
      }),
    );
  }

  app.get(
    '/leads/:id',
    { config: { access: 'signed-in', operation: leadsRpc.getLead, alsoRuns: [telephonyRpc.callStats] } },
    async (request, reply) => {
      const { id } = paramsOf(leadParams, request.params);
      return showLead(request, reply, id);
    },
  );

  app.post('/leads/:id/notes', { config: { access: 'manager', operation: leadsRpc.addLeadNote } }, async (request, reply) => {
    const { id } = paramsOf(leadParams, request.params);
    const parsed = noteFormSchema.safeParse(formOf(request.body));
    if (!parsed.success) return showLead(request, reply, id, 400, { noteError: parsed.error.issues[0]?.message ?? 'Check the note.' });
    try {
      await (await serviceFor(request)).addNote(id, parsed.data.body, parsed.data.form_key);
    } catch (error) {
      if (!isRefusal(error) || isMissingLead(error)) throw error;
      const noteError = error.param === 'body' ? 'Write the note: at most 10,000 characters.' : error.message;
      return showLead(request, reply, id, error.status, { noteError });
    }
    flash(request, reply, ctx.env, 'note-added');
    return reply.redirect(`${leadHref(id)}#lead-notes-heading`, 303);
  });

  app.post('/leads/:id/enroll', { config: { access: 'manager', operation: leadsRpc.enroll } }, async (request, reply) => {
    const { id } = paramsOf(leadParams, request.params);
    const parsed = enrollFormSchema.safeParse(formOf(request.body));
    if (!parsed.success) return showLead(request, reply, id, 400, { enrollError: parsed.error.issues[0]?.message ?? 'Choose a sequence.' });
    try {
      await (await serviceFor(request)).enroll(parsed.data.sequence_id, [id], `${leadHref(id)}/enroll`);
    } catch (error) {
      if (!isRefusal(error) || error.param === 'lead_ids' || isMissingLead(error)) throw error;
      return showLead(request, reply, id, error.status, { enrollError: error.message });
    }
    flash(request, reply, ctx.env, 'enrolled-in-sequence');
    return reply.redirect(`${leadHref(id)}#lead-sequences-heading`, 303);
  });

  app.get('/leads/:id/edit', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(leadParams, request.params);
    const lead = await (await serviceFor(request)).get(id);
    return formPage(request, reply, 200, { leadId: id, values: leadFormOf(lead) });
  });

  app.post('/leads/:id/edit', { config: { access: 'manager', operation: leadsRpc.updateLead } }, async (request, reply) => {
    const { id } = paramsOf(leadParams, request.params);
    const parsed = leadFormSchema.safeParse(formOf(request.body));
    if (!parsed.success) return formPage(request, reply, 400, { leadId: id, error: parsed.error.issues[0]?.message ?? 'Check the form.' });
    try {
      await (await serviceFor(request)).update(id, leadFieldsOf(parsed.data));
    } catch (error) {
      if (!isRefusal(error) || isMissingLead(error)) throw error;
      return formPage(request, reply, error.status, { leadId: id, values: parsed.data, ...onForm(error) });
    }
    flash(request, reply, ctx.env, 'lead-saved');
    return reply.redirect(leadHref(id), 303);
  });

  // The confirmation is a page of its own, so deleting needs no JavaScript; members get no such page.
  app.get('/leads/:id/delete', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(leadParams, request.params);
    const lead = await (await serviceFor(request)).get(id);
    return sendPage(reply, 200, deleteLeadConfirmPage(signedInOf(request), lead));
  });

  app.post('/leads/:id/delete', { config: { access: 'manager', operation: leadsRpc.deleteLead } }, async (request, reply) => {
    const { id } = paramsOf(leadParams, request.params);
    // Another organization's lead, or one deleted already, is a 404 page.
    await (await serviceFor(request)).delete(id);
    flash(request, reply, ctx.env, 'lead-deleted');
    return reply.redirect(leadsPath, 303);
  });
}
