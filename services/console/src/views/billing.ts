import { ApiError } from '@voice/kit';
import type { Lead, Page, WebhookEndpoint } from '@voice/proto';
import { billingQueryString, formFieldOf } from '../domain/billing.js';
import { currencyDigits, majorUnits } from '../domain/money.js';
import { type FieldErrors, pager } from './components.js';
import type { Formatter } from './format.js';
import { type Html, html, type Renderable } from './html.js';
import { leadsHref } from './list-links.js';

/**
 * What the invoices and projects pages share: the customer (a lead) as a link to its page, money in minor
 * units as the person's locale writes it, the lists' status filter and pager, and the confirmation's list of
 * where an event goes.
 */

/** An amount in minor units of its currency (cents, yen), formatted for the person's locale. */
export const minorMoney = (format: Formatter, amount: number, currency: string) => format.money(majorUnits(amount, currency), currency);

/** A rate in basis points as a percent: 825 → `8.25%`. */
export const percent = (format: Formatter, bps: number) =>
  `${new Intl.NumberFormat(format.audience.locale, { maximumFractionDigits: 2 }).format(bps / 100)}%`;

/** How many decimals a price in this currency has, for a form's hint. */
export const priceExample = (currency: string) =>
  currencyDigits(currency) === 0 ? '1200' : `12.${'5'.padEnd(currencyDigits(currency), '0')}`;

/**
 * A lead as the billing pages name it: its name (or id), linked to its page once the leads pages answer an
 * address (`leadsHref`, the one place lead links are made); a deleted lead's records say so.
 */
export function leadRef(leadId: string | null, lead?: Lead): Html | string {
  if (!leadId) return html`<span class="muted">No customer (the lead was deleted)</span>`;
  const name = lead?.name ?? lead?.company ?? leadId;
  const href = leadsHref({ lead: leadId });
  return href
    ? html`<a href="${href}">${name}</a>`
    : lead
      ? html`${name} <code class="lead-ref">${leadId}</code>`
      : html`<code class="lead-ref">${leadId}</code>`;
}

/** The customer's ways to be reached, as a confirmation shows who receives something. */
export function customerFacts(format: Formatter, leadId: string | null, lead: Lead | undefined): Html {
  return html`<dl class="customer" id="customer">
    <dt>Customer</dt><dd>${leadRef(leadId, lead)}</dd>
    ${
      lead
        ? html`<dt>E-mail</dt><dd>${lead.email ?? html`<span class="muted">none</span>`}</dd>
    <dt>Phone</dt><dd>${lead.phone ? format.phone(lead.phone) : html`<span class="muted">none</span>`}</dd>
    ${lead.company ? html`<dt>Company</dt><dd>${lead.company}</dd>` : ''}`
        : ''
    }
  </dl>`;
}

const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}" ${value === (current ?? '') ? html`selected` : ''}>${label}</option>`;

/** A list's filters: status and lead, a GET form whose names are the list's URL contract. */
export function billingFilterForm(options: {
  path: string;
  what: string;
  idPrefix: string;
  statuses: readonly string[];
  filters: { status?: string | undefined; lead_id?: string | undefined };
}): Html {
  const { path, idPrefix, filters } = options;
  return html`<form method="get" action="${path}" class="filters" aria-label="Filter the ${options.what}">
    <div class="filter-field"><label for="${idPrefix}-status">Status</label>
      <select id="${idPrefix}-status" name="status">
        ${option('', 'Any status', filters.status)}${options.statuses.map((status) => option(status, status, filters.status))}
      </select>
    </div>
    <div class="filter-field"><label for="${idPrefix}-lead">Lead id</label>
      <input id="${idPrefix}-lead" name="lead_id" type="text" maxlength="64" placeholder="lead_…" value="${filters.lead_id ?? ''}">
    </div>
    <button type="submit" class="primary">Filter</button>
    <a href="${path}" class="button">Clear</a>
  </form>`;
}

/** Keyset pages of a list, one way (the leads service's lists): Newest back to the first page, Older on. */
export function billingPager(
  path: string,
  filters: { status?: string | undefined; lead_id?: string | undefined; cursor?: string | undefined },
  page: Page<unknown>,
  options: { label: string; olderId: string; olderText: string },
): Html | string {
  const first = billingQueryString(filters);
  return pager({
    label: options.label,
    newest: filters.cursor ? `${path}${first ? `?${first}` : ''}` : undefined,
    older: page.next_cursor
      ? { href: `${path}?${billingQueryString(filters, page.next_cursor)}`, id: options.olderId, text: options.olderText }
      : undefined,
  });
}

/** Where an event goes, as a confirmation says it: the organization's endpoints that receive it. */
export function eventReceivers(eventType: string, receivers: WebhookEndpoint[] | undefined): Renderable {
  if (!receivers)
    return html`<p class="muted">The webhooks service did not answer, so the endpoints that receive <code>${eventType}</code> cannot be listed now.</p>`;
  if (receivers.length === 0)
    return html`<p id="event-receivers">No webhook endpoint of the organization receives <code>${eventType}</code>; the event is still recorded.</p>`;
  return html`<div id="event-receivers"><p>The event <code>${eventType}</code>, with the record as the API returns it, goes to:</p>
    <ul>${receivers.map((endpoint) => html`<li><a href="/dashboard/webhooks/${endpoint.id}">${endpoint.url}</a></li>`)}</ul></div>`;
}

/**
 * An operation's refusal of one form field, in words: the leads service judged it and named the field
 * (`param`, mapped to the form's name by `formFieldOf`); this only says how to put it right.
 */
export function refusalWords(code: string, field: string, message: string, currency: string): string {
  if (code === 'not_found' && field === 'lead_id') return 'This organization has no lead with this id.';
  const words: Record<string, string> = {
    lead_id: 'A lead id looks like lead_ followed by 8 to 40 letters and digits.',
    currency: 'Enter a three-letter currency code, e.g. USD or EUR.',
    due_date: 'Enter the due date as a date from 1970 on, e.g. 2026-12-31.',
    memo: 'The memo is at most 2,000 characters.',
    description: 'Describe the line in 1 to 500 characters.',
    quantity: 'Enter a quantity above 0 and up to 1,000,000, with at most 3 decimals, e.g. 1.5.',
    unit_price: `Enter the unit price in ${currency} as a number, e.g. ${priceExample(currency)}, with at most ${currencyDigits(currency)} decimals.`,
    tax_rate: 'Enter the tax rate in percent, from 0 to 100, with at most 2 decimals, e.g. 8.25.',
    name: 'Enter a name of 1 to 200 characters.',
    url: 'Enter a link that starts with https:// or http://, at most 2,048 characters.',
    notes: 'The notes are at most 10,000 characters.',
    status: 'Choose active or ready.',
  };
  return words[field.split('.').at(-1) ?? field] ?? message;
}

/**
 * A refused save as the form shows it: on the field the operation named, in words, or above the form when it
 * named none of the form's fields. Undefined for what is no refusal of the input (the record gone or of
 * another organization, no longer a draft, the service down): those are error pages.
 */
export function formRefusal(
  error: unknown,
  form: { list: 'lines' | 'deliverables'; rowOf: number[]; fields: readonly string[]; currency: string },
): { status: number; errors: FieldErrors; error?: string } | undefined {
  if (!(error instanceof ApiError) || error.status >= 500) return undefined;
  if (error.code === 'idempotency_conflict') {
    return {
      status: error.status,
      errors: {},
      error:
        'This form already drafted a different invoice: check the invoices list; to draft this one as well, save it from this new form.',
    };
  }
  const field = formFieldOf(error.param, form.list, form.rowOf);
  const onForm = field !== undefined && (field.startsWith(`${form.list}.`) || form.fields.includes(field));
  if (error.code === 'not_found' && field !== 'lead_id') return undefined;
  if (error.code !== 'invalid_request' && error.code !== 'not_found') return undefined;
  if (!onForm) return { status: error.status, errors: {}, error: error.message };
  return { status: error.status, errors: { [field]: refusalWords(error.code, field, error.message, form.currency) } };
}
