import { type Invoice, invoiceStatuses, type Lead, type Page, type RecordEvent, type WebhookEndpoint } from '@voice/proto';
import {
  billingQueryString,
  formRows,
  type InvoiceAction,
  type InvoiceFilters,
  type InvoiceFormValues,
  invoiceActions,
  invoicesPath,
} from '../domain/billing.js';
import { currencyDigits, scaledText } from '../domain/money.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { billingFilterForm, billingPager, customerFacts, eventReceivers, leadRef, minorMoney, percent, priceExample } from './billing.js';
import { badge, dataTable, emptyState, type FieldErrors, field, formatFor, pageHeader, time } from './components.js';
import { confirmPage } from './confirm.js';
import type { Formatter } from './format.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';
import { recordEventsSection } from './record-events.js';

export const invoicePath = (id: string) => `${invoicesPath}/${id}`;
export const newInvoicePath = `${invoicesPath}/new`;
export const newInvoiceHref = (leadId?: string) =>
  leadId ? `${newInvoicePath}?${new URLSearchParams({ lead_id: leadId })}` : newInvoicePath;

const total = (format: Formatter, invoice: Invoice) => minorMoney(format, invoice.total, invoice.currency);

export interface InvoicesListView {
  filters: InvoiceFilters;
  invoices: Page<Invoice>;
}

export function invoicesListPage(signedIn: SignedIn, view: InvoicesListView) {
  const { filters, invoices } = view;
  const format = formatFor(signedIn);
  const manager = canManage(signedIn.role);
  const filtered = Boolean(filters.status || filters.lead_id);
  const empty = filtered
    ? emptyState({
        id: 'invoices-empty',
        title: 'No invoices match these filters.',
        next: html`Choose another status, or <a href="${invoicesPath}">clear the filters</a>.`,
      })
    : emptyState({
        id: 'invoices-empty',
        title: 'No invoices yet.',
        next: manager
          ? html`<a href="${newInvoicePath}">Draft one</a> for a lead, or let an AI agent draft them through the MCP server's billing tools.`
          : 'Owners and admins draft them here; AI agents through the MCP server’s billing tools.',
      });
  return page({
    title: 'Invoices',
    signedIn,
    path: invoicesPath,
    body: html`${pageHeader({
      title: 'Invoices',
      lead: 'Every invoice of the organization, newest first: drafts to finish, invoices sent, paid or voided.',
      actions: html`${manager ? html`<a id="invoices-new" class="button" href="${newInvoicePath}">Draft an invoice</a>` : ''}
        <a class="button" href="/dashboard/projects">Projects</a>`,
    })}
      ${billingFilterForm({ path: invoicesPath, what: 'invoices', idPrefix: 'invoices', statuses: invoiceStatuses, filters })}
      ${
        invoices.data.length === 0
          ? empty
          : dataTable({
              id: 'invoices-table',
              caption: 'Invoices',
              captionHidden: true,
              head: html`<th scope="col">Invoice</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col">Total</th><th scope="col">Due</th><th scope="col">Created (${format.audience.timeZone})</th>`,
              rows: invoices.data.map(
                (invoice) => html`<tr id="invoice-${invoice.id}">
                  <th scope="row"><a href="${invoicePath(invoice.id)}"><code>${invoice.id}</code></a></th>
                  <td>${leadRef(invoice.lead_id)}</td>
                  <td>${badge(invoice.status)}</td>
                  <td class="num">${total(format, invoice)}</td>
                  <td class="nowrap">${invoice.due_date ? format.day(invoice.due_date) : '—'}</td>
                  <td class="nowrap">${time(format, invoice.created_at)}</td>
                </tr>`,
              ),
            })
      }
      ${billingPager(invoicesPath, filters, invoices, { label: 'Pages of invoices', olderId: 'invoices-older', olderText: 'Older invoices' })}`,
  });
}

/** The invoice's lines and totals, as the page and the send confirmation show them. */
function linesTable(format: Formatter, invoice: Invoice): Html {
  const money = (amount: number) => minorMoney(format, amount, invoice.currency);
  const lines =
    invoice.lines.length === 0
      ? html`<p class="muted" id="invoice-no-lines">No lines yet.</p>`
      : dataTable({
          id: 'invoice-lines',
          caption: 'Lines',
          captionHidden: true,
          head: html`<th scope="col">Description</th><th scope="col">Quantity</th><th scope="col">Unit price</th><th scope="col">Tax rate</th><th scope="col">Subtotal</th><th scope="col">Tax</th><th scope="col">Total</th>`,
          rows: invoice.lines.map(
            (line) => html`<tr>
              <th scope="row">${line.description}</th>
              <td class="num">${format.number(line.quantity)}</td>
              <td class="num">${money(line.unit_amount)}</td>
              <td class="num">${percent(format, line.tax_rate_bps)}</td>
              <td class="num">${money(line.subtotal)}</td>
              <td class="num">${money(line.tax)}</td>
              <td class="num">${money(line.total)}</td>
            </tr>`,
          ),
        });
  return html`${lines}
    <dl class="totals" id="invoice-totals">
      <dt>Subtotal</dt><dd>${money(invoice.subtotal)}</dd>
      <dt>Tax</dt><dd>${money(invoice.tax)}</dd>
      <dt>Total</dt><dd id="invoice-total">${money(invoice.total)}</dd>
    </dl>`;
}

/** The action links a manager gets on an invoice in its status (each opens its confirmation page). */
const actionLabels: Record<InvoiceAction, string> = { send: 'Send…', pay: 'Mark paid…', void: 'Void…', delete: 'Delete draft…' };

export interface InvoiceView {
  invoice: Invoice;
  lead: Lead | undefined;
  events: { data: RecordEvent[]; has_more: boolean } | undefined;
}

export function invoicePage(signedIn: SignedIn, view: InvoiceView) {
  const { invoice, lead } = view;
  const format = formatFor(signedIn);
  const manager = canManage(signedIn.role);
  const actions = (Object.keys(invoiceActions) as InvoiceAction[]).filter((action) =>
    (invoiceActions[action].from as readonly string[]).includes(invoice.status),
  );
  const title = `Invoice ${invoice.id}`;
  return page({
    title,
    signedIn,
    path: invoicesPath,
    body: html`<p><a href="${invoicesPath}">← Invoices</a></p>
      ${pageHeader({
        title: html`Invoice <code>${invoice.id}</code>`,
        lead: html`${badge(invoice.status, undefined, 'invoice-status')} ${total(format, invoice)}`,
        actions: manager
          ? html`${invoice.status === 'draft' ? html`<a id="invoice-edit" class="button" href="${invoicePath(invoice.id)}/edit">Edit</a>` : ''}
            ${actions.map((action) => html`<a id="invoice-${action}" class="button" href="${invoicePath(invoice.id)}/${action}">${actionLabels[action]}</a>`)}`
          : '',
      })}
      <dl id="invoice-facts">
        <dt>Customer</dt><dd>${leadRef(invoice.lead_id, lead)}</dd>
        <dt>Currency</dt><dd>${invoice.currency}</dd>
        <dt>Due</dt><dd>${invoice.due_date ? format.day(invoice.due_date) : '—'}</dd>
        <dt>Memo</dt><dd class="prewrap">${invoice.memo ?? '—'}</dd>
        <dt>Created</dt><dd>${time(format, invoice.created_at)}</dd>
        <dt>Sent</dt><dd>${time(format, invoice.sent_at)}</dd>
        <dt>Paid</dt><dd>${time(format, invoice.paid_at)}</dd>
        <dt>Voided</dt><dd>${time(format, invoice.voided_at)}</dd>
      </dl>
      <section aria-labelledby="invoice-lines-heading">
        <h2 id="invoice-lines-heading">Lines</h2>
        ${linesTable(format, invoice)}
      </section>
      <section aria-labelledby="invoice-events-heading">
        <h2 id="invoice-events-heading">Events and webhook deliveries</h2>
        ${recordEventsSection(format, view.events, 'invoice')}
      </section>`,
  });
}

export interface InvoiceFormView {
  /** The draft being edited; none for a new one. */
  invoice?: Invoice;
  values: InvoiceFormValues;
  /** A new draft's key (one draft per rendered form). */
  formKey?: string;
  errors: FieldErrors;
  error?: string | undefined;
}

/** A draft's form values from the invoice itself (editing): amounts back in the units people type. */
export function invoiceFormValues(invoice: Invoice): InvoiceFormValues {
  const digits = currencyDigits(invoice.currency);
  const lines = invoice.lines.map((line) => ({
    description: line.description,
    quantity: String(line.quantity),
    unit_price: scaledText(line.unit_amount, digits),
    tax_rate: line.tax_rate_bps === 0 ? '' : scaledText(line.tax_rate_bps, 2),
  }));
  const rows = Math.min(formRows.invoiceMost, Math.max(formRows.initial, lines.length + 1));
  const blank = { description: '', quantity: '', unit_price: '', tax_rate: '' };
  return {
    lead_id: invoice.lead_id ?? '',
    currency: invoice.currency,
    due_date: invoice.due_date ?? '',
    memo: invoice.memo ?? '',
    lines: [...lines, ...Array.from({ length: rows - lines.length }, () => ({ ...blank }))],
  };
}

/** A new draft's empty form, with a lead already chosen when the page was opened for one. */
export function blankInvoiceForm(leadId = ''): InvoiceFormValues {
  const blank = { description: '', quantity: '', unit_price: '', tax_rate: '' };
  return {
    lead_id: leadId,
    currency: 'USD',
    due_date: '',
    memo: '',
    lines: Array.from({ length: formRows.initial }, () => ({ ...blank })),
  };
}

function lineFields(values: InvoiceFormValues, errors: FieldErrors): Html {
  return html`${values.lines.map((line, row) => {
    const name = (part: string) => `lines.${row}.${part}`;
    const id = (part: string) => `line-${row}-${part}`;
    return html`<fieldset class="line-row" id="line-${row}">
      <legend>Line ${row + 1}</legend>
      ${field({ id: id('description'), name: name('description'), label: 'Description', value: line.description, error: errors[name('description')], attributes: html`maxlength="500"` })}
      ${field({ id: id('quantity'), name: name('quantity'), label: 'Quantity', value: line.quantity, error: errors[name('quantity')], attributes: html`inputmode="decimal" maxlength="20" placeholder="1"` })}
      ${field({ id: id('unit_price'), name: name('unit_price'), label: `Unit price (${values.currency})`, value: line.unit_price, error: errors[name('unit_price')], attributes: html`inputmode="decimal" maxlength="20" placeholder="${priceExample(values.currency)}"` })}
      ${field({ id: id('tax_rate'), name: name('tax_rate'), label: 'Tax rate (%)', value: line.tax_rate, error: errors[name('tax_rate')], attributes: html`inputmode="decimal" maxlength="10" placeholder="0"` })}
    </fieldset>`;
  })}`;
}

export function invoiceFormPage(signedIn: SignedIn, view: InvoiceFormView) {
  const { values, errors, invoice } = view;
  const title = invoice ? 'Edit the draft' : 'Draft an invoice';
  const action = invoice ? invoicePath(invoice.id) : invoicesPath;
  const back = invoice ? invoicePath(invoice.id) : invoicesPath;
  return page({
    title,
    signedIn,
    path: invoicesPath,
    body: html`<p><a href="${back}">← ${invoice ? 'The invoice' : 'Invoices'}</a></p>
      ${pageHeader({
        title: invoice ? html`Edit the draft <code>${invoice.id}</code>` : title,
        lead: 'A draft changes until it is sent. Totals are computed from the lines: quantity × unit price, plus tax, rounded per line.',
      })}
      ${notice('error', view.error)}
      <form method="post" action="${action}" class="panel invoice-form" id="invoice-form">
        ${csrfField(signedIn.csrfToken)}
        ${view.formKey ? html`<input type="hidden" name="form_key" value="${view.formKey}">` : ''}
        <input type="hidden" name="rows" value="${values.lines.length}">
        ${field({ id: 'invoice-lead', name: 'lead_id', label: 'Lead id (the customer)', value: values.lead_id, hint: 'The lead the invoice is for, e.g. lead_2x8Fq0aZ9kLm4Rt7; a lead’s page drafts one for it.', error: errors.lead_id, attributes: html`required maxlength="64" autocomplete="off"` })}
        ${field({ id: 'invoice-currency', name: 'currency', label: 'Currency', value: values.currency, hint: 'ISO 4217 code: USD, EUR, GBP, JPY…', error: errors.currency, attributes: html`required maxlength="3" autocomplete="off"` })}
        ${field({ id: 'invoice-due', name: 'due_date', label: 'Due date (optional)', type: 'date', value: values.due_date, error: errors.due_date })}
        ${field({
          id: 'invoice-memo',
          name: 'memo',
          label: 'Memo (optional)',
          hint: 'Printed on the invoice for the customer.',
          error: errors.memo,
          control: (describedBy, invalid) =>
            html`<textarea id="invoice-memo" name="memo" rows="3" maxlength="2000"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${values.memo}</textarea>`,
        })}
        <h2>Lines</h2>
        <p class="hint">Leave a row empty to skip it. Prices in ${values.currency}, e.g. ${priceExample(values.currency)}; tax in percent, e.g. 8.25.</p>
        ${notice('error', errors.lines)}
        ${lineFields(values, errors)}
        <div class="actions">
          <button type="submit" id="invoice-save" class="primary">${invoice ? 'Save the draft' : 'Save as draft'}</button>
          ${values.lines.length < formRows.invoiceMost ? html`<button type="submit" name="more" value="1" id="invoice-more-rows" formnovalidate>Add more rows</button>` : ''}
          <a href="${back}" class="button">Cancel</a>
        </div>
      </form>`,
  });
}

/** Each action's confirmation: what happens, in words, and its button. */
const confirmations: Record<InvoiceAction, { title: string; question: string; button: string; tone?: 'primary' }> = {
  send: {
    title: 'Send the invoice',
    question:
      'Sending freezes the invoice as it is below and tells the customer through your delivery channels. It can no longer be changed; void it to cancel.',
    button: 'Send the invoice',
  },
  pay: {
    title: 'Mark the invoice paid',
    question: 'Record that the customer paid the total below. This cannot be undone.',
    button: 'Mark paid',
    tone: 'primary',
  },
  void: {
    title: 'Void the invoice',
    question: 'A voided invoice stays on record but is no longer owed. This cannot be undone; draft a new invoice to bill again.',
    button: 'Void the invoice',
  },
  delete: {
    title: 'Delete the draft',
    question: 'The draft and its lines are deleted. This cannot be undone.',
    button: 'Delete the draft',
  },
};

export interface InvoiceConfirmView {
  invoice: Invoice;
  lead: Lead | undefined;
  /** Sending: the endpoints that receive `invoice.sent`. */
  receivers?: WebhookEndpoint[] | undefined;
}

export function invoiceConfirmPage(signedIn: SignedIn, action: InvoiceAction, view: InvoiceConfirmView) {
  const { invoice, lead } = view;
  const format = formatFor(signedIn);
  const words = confirmations[action];
  return confirmPage(signedIn, {
    title: words.title,
    heading: `${words.title} ${invoice.id} for ${total(format, invoice)}?`,
    path: invoicesPath,
    question: words.question,
    details: html`<section aria-labelledby="confirm-what" class="confirm-details">
      <h2 id="confirm-what">${action === 'send' ? 'What goes out, and to whom' : 'The invoice'}</h2>
      ${customerFacts(format, invoice.lead_id, lead)}
      <dl>
        <dt>Due</dt><dd>${invoice.due_date ? format.day(invoice.due_date) : 'No due date'}</dd>
        <dt>Memo</dt><dd class="prewrap">${invoice.memo ?? '—'}</dd>
      </dl>
      ${linesTable(format, invoice)}
      ${action === 'send' ? eventReceivers('invoice.sent', view.receivers) : ''}
    </section>`,
    action: `${invoicePath(invoice.id)}/${action}`,
    buttonId: `invoice-${action}-confirm`,
    buttonLabel: words.button,
    ...(words.tone ? { tone: words.tone } : {}),
    cancelHref: invoicePath(invoice.id),
    cancelLabel: 'Back to the invoice',
  });
}

/** The list's address with filters, for links from elsewhere (a lead's page: its invoices). */
export const invoicesListHref = (filters: { status?: string; lead_id?: string } = {}) => {
  const query = billingQueryString(filters);
  return query ? `${invoicesPath}?${query}` : invoicesPath;
};
