import { ApiError, type Bus } from '@voice/kit';
import { idSchema, leadsRpc } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  billingFor,
  type InvoiceAction,
  type InvoiceFormValues,
  invoiceActions,
  invoiceFiltersOf,
  invoiceFormOf,
  invoiceInputOf,
  invoicesPath,
} from '../domain/billing.js';
import { newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import { type FlashCode, flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf, queryOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { formRefusal } from '../views/billing.js';
import type { FieldErrors } from '../views/components.js';
import {
  blankInvoiceForm,
  invoiceConfirmPage,
  invoiceFormPage,
  invoiceFormValues,
  invoicePage,
  invoicePath,
  invoicesListPage,
} from '../views/invoices.js';

const invoiceParams = z.object({ id: idSchema('invoice') });
const newInvoiceQuery = z.object({
  lead_id: z.preprocess((value) => (value === '' ? undefined : value), idSchema('lead').optional()),
});
/** The invoice form's fields the leads service may name in a refusal (`param`), besides a line's. */
const invoiceFields = ['lead_id', 'currency', 'due_date', 'memo', 'lines'] as const;

const actionFlash: Record<InvoiceAction, FlashCode> = {
  send: 'invoice-sent',
  pay: 'invoice-paid',
  void: 'invoice-voided',
  delete: 'invoice-deleted',
};

/**
 * Invoices: the list, an invoice's page, drafting (once per form), editing a draft, and sending, marking paid,
 * voiding and deleting after a confirmation page each. Invoices are the leads service's: every page and action
 * is a NATS call for the signed-in person, the operations the API and the MCP `billing` tools use, so they fire
 * the same events (`invoice.sent`) and webhooks; changes are audited with the person as actor.
 */
export function invoiceRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const billing = (request: FastifyRequest) => billingFor(ctx, signedInOf(request), request.id);

  app.get('/invoices', { config: { access: 'signed-in', operation: leadsRpc.listInvoices } }, async (request, reply) => {
    const filters = invoiceFiltersOf(request.query);
    const invoices = await (await billing(request)).listInvoices(filters);
    return sendPage(reply, 200, invoicesListPage(signedInOf(request), { filters, invoices }));
  });

  const draftForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    values: InvoiceFormValues,
    refusal: { errors?: FieldErrors; error?: string | undefined; formKey?: string | undefined } = {},
  ) =>
    sendPage(
      reply,
      status,
      invoiceFormPage(signedInOf(request), {
        values,
        formKey: refusal.formKey ?? newFormKey(),
        errors: refusal.errors ?? {},
        error: refusal.error,
      }),
    );

  app.get('/invoices/new', { config: { access: 'manager' } }, async (request, reply) => {
    const { lead_id } = queryOf(newInvoiceQuery, request.query);
    return draftForm(request, reply, 200, blankInvoiceForm(lead_id));
  });

  app.post('/invoices', { config: { access: 'manager', operation: leadsRpc.draftInvoice } }, async (request, reply) => {
    const { values, more, formKey } = invoiceFormOf(formOf(request.body));
    if (!formKey) {
      throw new ApiError('invalid_request', 'This form is incomplete or out of date: open it again and draft the invoice again.', {
        param: 'form_key',
      });
    }
    // More rows: the same form, its key kept (nothing was drafted yet), with blank rows below.
    if (more) return draftForm(request, reply, 200, values, { formKey });
    const { input, rowOf } = invoiceInputOf(values);
    let invoice: Awaited<ReturnType<Awaited<ReturnType<typeof billing>>['draftInvoice']>>;
    try {
      // A double submit's second request finds the first's draft: one invoice per form.
      invoice = await (await billing(request)).draftInvoice(input, formKey);
    } catch (error) {
      const refusal = formRefusal(error, { list: 'lines', rowOf, fields: invoiceFields, currency: values.currency });
      if (!refusal) throw error;
      return draftForm(request, reply, refusal.status, values, refusal);
    }
    flash(request, reply, ctx.env, 'invoice-drafted');
    return reply.redirect(invoicePath(invoice.id), 303);
  });

  app.get('/invoices/:id', { config: { access: 'signed-in', operation: leadsRpc.getInvoice } }, async (request, reply) => {
    const { id } = paramsOf(invoiceParams, request.params);
    const service = await billing(request);
    const invoice = await service.getInvoice(id);
    return sendPage(reply, 200, invoicePage(signedInOf(request), { invoice, ...(await service.around(invoice)) }));
  });

  /** A draft, or a 409 page: only drafts change (the leads service's rule; this page offers nothing else). */
  const draftOf = async (request: FastifyRequest, id: string) => {
    const invoice = await (await billing(request)).getInvoice(id);
    if (invoice.status !== 'draft') throw new ApiError('conflict', `This invoice is ${invoice.status}; only drafts can be changed.`);
    return invoice;
  };

  app.get('/invoices/:id/edit', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(invoiceParams, request.params);
    const invoice = await draftOf(request, id);
    return sendPage(reply, 200, invoiceFormPage(signedInOf(request), { invoice, values: invoiceFormValues(invoice), errors: {} }));
  });

  app.post('/invoices/:id', { config: { access: 'manager', operation: leadsRpc.updateInvoice } }, async (request, reply) => {
    const { id } = paramsOf(invoiceParams, request.params);
    const { values, more } = invoiceFormOf(formOf(request.body));
    const editForm = async (status: number, refusal: { errors?: FieldErrors; error?: string | undefined } = {}) =>
      sendPage(
        reply,
        status,
        invoiceFormPage(signedInOf(request), {
          invoice: await draftOf(request, id),
          values,
          errors: refusal.errors ?? {},
          error: refusal.error,
        }),
      );
    if (more) return editForm(200);
    const { input, rowOf } = invoiceInputOf(values);
    const { metadata: _kept, ...changes } = input;
    try {
      // The whole form is saved (lines replaced whole), so a second submit saves the same again.
      await (await billing(request)).updateInvoice(id, changes);
    } catch (error) {
      const refusal = formRefusal(error, { list: 'lines', rowOf, fields: invoiceFields, currency: values.currency });
      if (!refusal) throw error;
      return editForm(refusal.status, refusal);
    }
    flash(request, reply, ctx.env, 'invoice-saved');
    return reply.redirect(invoicePath(id), 303);
  });

  // Each action's confirmation is a page of its own (no JavaScript needed); the person's click on it is the
  // approval an agent would have to ask for. Members get no such page.
  for (const action of Object.keys(invoiceActions) as InvoiceAction[]) {
    app.get(`/invoices/:id/${action}`, { config: { access: 'manager' } }, async (request, reply) => {
      const { id } = paramsOf(invoiceParams, request.params);
      const service = await billing(request);
      const invoice = await service.getInvoice(id);
      if (!(invoiceActions[action].from as readonly string[]).includes(invoice.status)) {
        throw new ApiError('conflict', `This invoice is ${invoice.status}: it cannot be ${invoiceActions[action].done} now.`);
      }
      const [lead, receivers] = await Promise.all([
        service.lead(invoice.lead_id),
        action === 'send' ? service.receivers('invoice.sent') : undefined,
      ]);
      return sendPage(reply, 200, invoiceConfirmPage(signedInOf(request), action, { invoice, lead, receivers }));
    });

    app.post(
      `/invoices/:id/${action}`,
      { config: { access: 'manager', operation: invoiceActions[action].operation } },
      async (request, reply) => {
        const { id } = paramsOf(invoiceParams, request.params);
        // Refusals (409 once it is no longer in a status that allows it, 404 for another organization's, 400 for
        // an invoice with no lines to send) are error pages in the service's words.
        await (await billing(request)).invoiceAction(id, action);
        flash(request, reply, ctx.env, actionFlash[action]);
        return reply.redirect(action === 'delete' ? invoicesPath : invoicePath(id), 303);
      },
    );
  }
}
