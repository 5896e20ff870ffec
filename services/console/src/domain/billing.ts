import { ApiError, type Bus, type Logger } from '@voice/kit';
import {
  type CreateInvoice,
  type Invoice,
  invoiceStatuses,
  type ListInvoicesQuery,
  type ListProjectsQuery,
  leadsRpc,
  type Project,
  projectStatuses,
  type UpdateInvoice,
  type UpdateProject,
  webhooksRpc,
} from '@voice/proto';
import { z } from 'zod';
import type { FormFields } from '../http/forms.js';
import { afterTheFirst, audited, isFormKey } from './console-actions.js';
import { personOnGateway } from './identity.js';
import { checkedQuery } from './messages.js';
import { currencyDigits, scaledInteger } from './money.js';
import type { SignedIn } from './sessions.js';

/** Rows of one page of the invoices and projects lists. */
export const billingPageSize = 25;

export const invoicesPath = '/dashboard/invoices';
export const projectsPath = '/dashboard/projects';

// ── Lists ────────────────────────────────────────────────────────────────────────────────────────────────

const blankIsAny = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const leadIdPattern = /^lead_[0-9A-Za-z]{8,40}$/;

function billingFilterSchema<S extends readonly [string, ...string[]]>(statuses: S) {
  return z.object({
    status: z.preprocess(blankIsAny, z.enum(statuses, `The status filter must be one of ${statuses.join(', ')}.`).optional()),
    lead_id: z.preprocess(
      (value) => blankIsAny(typeof value === 'string' ? value.trim() : value),
      z.string().regex(leadIdPattern, 'The lead_id filter must be a lead id, lead_ followed by 8 to 40 letters and digits.').optional(),
    ),
    cursor: z.preprocess(blankIsAny, z.string().max(512, 'The page link is damaged; start again from the first page.').optional()),
  });
}
const invoiceFilterSchema = billingFilterSchema(invoiceStatuses);
const projectFilterSchema = billingFilterSchema(projectStatuses);
export type InvoiceFilters = z.output<typeof invoiceFilterSchema>;
export type ProjectFilters = z.output<typeof projectFilterSchema>;

/** The invoices list's query (`status`, `lead_id`, `cursor`; empty means any), or a 400 page naming the field. */
export const invoiceFiltersOf = (query: unknown): InvoiceFilters => checkedQuery(invoiceFilterSchema, query);
/** The projects list's query, as the invoices'. */
export const projectFiltersOf = (query: unknown): ProjectFilters => checkedQuery(projectFilterSchema, query);

/** The filters as a query string, with a cursor when given: the pager's links keep the filters. */
export function billingQueryString(filters: { status?: string | undefined; lead_id?: string | undefined }, cursor?: string | null): string {
  const entries: [string, string][] = [];
  if (filters.status) entries.push(['status', filters.status]);
  if (filters.lead_id) entries.push(['lead_id', filters.lead_id]);
  if (cursor) entries.push(['cursor', cursor]);
  return new URLSearchParams(entries).toString();
}

const listQuery = (filters: InvoiceFilters | ProjectFilters) => ({
  limit: billingPageSize,
  ...(filters.status ? { status: filters.status } : {}),
  ...(filters.lead_id ? { lead_id: filters.lead_id } : {}),
  ...(filters.cursor ? { cursor: filters.cursor } : {}),
});

// ── Forms ────────────────────────────────────────────────────────────────────────────────────────────────

/** The line rows a new form shows, how many "Add more rows" adds, and the most an invoice may have (leads' limit). */
export const formRows = { initial: 5, step: 5, invoiceMost: 100, projectMost: 50 } as const;

/**
 * A value as typed where the operation takes a number: the number when it reads as one, else the text itself,
 * which the operation refuses with the field's `param` (the console judges nothing twice).
 */
const typedNumber = (value: number | undefined, text: string) => (value ?? text) as number;

const rowCount = (fields: FormFields, most: number) => {
  const asked = Number(fields.rows);
  const rows = Number.isInteger(asked) && asked > 0 ? asked : formRows.initial;
  return Math.min(most, fields.more === undefined ? rows : rows + formRows.step);
};

export interface InvoiceLineValues {
  description: string;
  quantity: string;
  unit_price: string;
  tax_rate: string;
}
export interface InvoiceFormValues {
  lead_id: string;
  currency: string;
  due_date: string;
  memo: string;
  lines: InvoiceLineValues[];
}

/** The invoice form as posted: what was typed (kept for the re-rendered form), and whether it asked for more rows. */
export function invoiceFormOf(fields: FormFields): { values: InvoiceFormValues; more: boolean; formKey: string | undefined } {
  const text = (name: string) => fields[name] ?? '';
  const rows = rowCount(fields, formRows.invoiceMost);
  const lines = Array.from({ length: rows }, (_, row) => ({
    description: text(`lines.${row}.description`),
    quantity: text(`lines.${row}.quantity`),
    unit_price: text(`lines.${row}.unit_price`),
    tax_rate: text(`lines.${row}.tax_rate`),
  }));
  return {
    values: {
      lead_id: text('lead_id').trim(),
      currency: text('currency').trim().toUpperCase() || 'USD',
      due_date: text('due_date').trim(),
      memo: text('memo'),
      lines,
    },
    more: fields.more !== undefined,
    formKey: isFormKey(fields.form_key) ? fields.form_key : undefined,
  };
}

/**
 * The operation's input for the form: rows left wholly blank are no lines; prices are typed in major units of
 * the currency (12.50) and taxes in percent (8.25), the operation takes minor units and basis points. `rowOf`
 * maps the operation's line index (in its `param`, `lines.2.unit_amount`) back to the form's row.
 */
export function invoiceInputOf(values: InvoiceFormValues): { input: CreateInvoice; rowOf: number[] } {
  const digits = currencyDigits(values.currency);
  const rowOf: number[] = [];
  const lines = values.lines.flatMap((line, row) => {
    const typed = [line.description, line.quantity, line.unit_price, line.tax_rate].map((value) => value.trim());
    if (typed.every((value) => value === '')) return [];
    rowOf.push(row);
    const [description = '', quantity = '', price = '', tax = ''] = typed;
    const thousandths = scaledInteger(quantity, 3);
    return [
      {
        description,
        quantity: quantity === '' ? 1 : typedNumber(thousandths === undefined ? undefined : thousandths / 1000, quantity),
        unit_amount: typedNumber(scaledInteger(price, digits), price),
        tax_rate_bps: tax === '' ? 0 : typedNumber(scaledInteger(tax, 2), tax),
      },
    ];
  });
  return {
    input: {
      lead_id: values.lead_id,
      currency: values.currency,
      lines,
      due_date: values.due_date === '' ? null : values.due_date,
      memo: values.memo.trim() === '' ? null : values.memo,
      metadata: {},
    },
    rowOf,
  };
}

export interface DeliverableValues {
  name: string;
  url: string;
  done: boolean;
}
export interface ProjectFormValues {
  name: string;
  status: string;
  due_date: string;
  notes: string;
  deliverables: DeliverableValues[];
}

/** The project form as posted (see `invoiceFormOf`). */
export function projectFormOf(fields: FormFields): { values: ProjectFormValues; more: boolean } {
  const text = (name: string) => fields[name] ?? '';
  const rows = rowCount(fields, formRows.projectMost);
  return {
    values: {
      name: text('name'),
      status: text('status'),
      due_date: text('due_date').trim(),
      notes: text('notes'),
      deliverables: Array.from({ length: rows }, (_, row) => ({
        name: text(`deliverables.${row}.name`),
        url: text(`deliverables.${row}.url`),
        done: fields[`deliverables.${row}.done`] !== undefined,
      })),
    },
    more: fields.more !== undefined,
  };
}

/** The update's input for the form: every field, deliverables replaced whole (blank rows are none). */
export function projectInputOf(values: ProjectFormValues): { input: UpdateProject; rowOf: number[] } {
  const rowOf: number[] = [];
  const deliverables = values.deliverables.flatMap((deliverable, row) => {
    const name = deliverable.name.trim();
    const url = deliverable.url.trim();
    if (name === '' && url === '' && !deliverable.done) return [];
    rowOf.push(row);
    return [{ name, url: url === '' ? null : url, done: deliverable.done }];
  });
  return {
    input: {
      name: values.name,
      status: values.status as 'active' | 'ready',
      due_date: values.due_date === '' ? null : values.due_date,
      notes: values.notes.trim() === '' ? null : values.notes,
      deliverables,
    },
    rowOf,
  };
}

/**
 * The form field an operation's refusal is about: its `param` as the form names it (a line's index back to
 * the form's row, `unit_amount` to the price typed in major units; the list itself when the refusal is about
 * all its items), or undefined for a refusal of no field.
 */
export function formFieldOf(param: string | undefined, list: 'lines' | 'deliverables', rowOf: number[]): string | undefined {
  if (!param) return undefined;
  const item = new RegExp(`^${list}\\.(\\d+)\\.([a-z_]+)`).exec(param);
  if (!item) return param.split('.')[0];
  const row = rowOf[Number(item[1])] ?? 0;
  const names: Record<string, string> = { unit_amount: 'unit_price', tax_rate_bps: 'tax_rate' };
  return `${list}.${row}.${names[item[2] as string] ?? item[2]}`;
}

// ── Operations ───────────────────────────────────────────────────────────────────────────────────────────

/** What the invoice page's actions do, and in which statuses the leads service allows each (pages offer it then). */
export const invoiceActions = {
  send: { operation: leadsRpc.sendInvoice, from: ['draft'], done: 'sent' },
  pay: { operation: leadsRpc.markInvoicePaid, from: ['sent'], done: 'marked paid' },
  void: { operation: leadsRpc.voidInvoice, from: ['draft', 'sent'], done: 'voided' },
  delete: { operation: leadsRpc.deleteInvoice, from: ['draft'], done: 'deleted' },
} as const satisfies Record<string, { operation: unknown; from: readonly Invoice['status'][]; done: string }>;
export type InvoiceAction = keyof typeof invoiceActions;
export const isInvoiceAction = (value: string): value is InvoiceAction => Object.hasOwn(invoiceActions, value);
export const deliverableStatuses: readonly Project['status'][] = ['active', 'ready'];

/**
 * The leads and webhooks operations the billing pages need, for one person and request: the same NATS
 * operations the API and MCP tools use (`service_list_invoices`… `service_deliver_project`), with the
 * person's identity (`read` for members, so the leads service itself refuses their changes). Every change is
 * audited with the person as actor. Sending an invoice and delivering a project are operations an agent may
 * only ask a person to approve; a person's click on the confirmation page is that approval, so the console
 * runs them directly, firing the same events (`invoice.sent`, `project.delivered`).
 */
export async function billingFor(ctx: { bus: Bus; logger: Logger }, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  const change = <T>(path: string, status: number, work: () => Promise<T>) => audited(ctx, identity, { path, status }, work);
  /** The customer an invoice or project is for; undefined once the lead was deleted. */
  const lead = async (id: string | null) => {
    if (!id) return undefined;
    try {
      return await ctx.bus.call(leadsRpc.getLead, identity, { id });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    }
  };
  return {
    listInvoices: (filters: InvoiceFilters) => ctx.bus.call(leadsRpc.listInvoices, identity, listQuery(filters) as ListInvoicesQuery),
    getInvoice: (id: string) => ctx.bus.call(leadsRpc.getInvoice, identity, { id }),
    /** Drafts once per rendered form: its key, tied to the person, is the operation's idempotency key. */
    draftInvoice: (input: CreateInvoice, formKey: string) =>
      change(invoicesPath, 201, () =>
        afterTheFirst(() =>
          ctx.bus.call(leadsRpc.draftInvoice, identity, { ...input, idempotency_key: `console:${signedIn.user.id}:${formKey}` }),
        ),
      ),
    /** Saves a draft's form whole (a second submit saves the same again). */
    updateInvoice: (id: string, input: UpdateInvoice) =>
      change(`${invoicesPath}/${id}`, 200, () => ctx.bus.call(leadsRpc.updateInvoice, identity, { id, ...input })),
    invoiceAction: (id: string, action: InvoiceAction) =>
      change(`${invoicesPath}/${id}/${action}`, 200, () => ctx.bus.call(invoiceActions[action].operation, identity, { id })),
    listProjects: (filters: ProjectFilters) => ctx.bus.call(leadsRpc.listProjects, identity, listQuery(filters) as ListProjectsQuery),
    getProject: (id: string) => ctx.bus.call(leadsRpc.getProject, identity, { id }),
    updateProject: (id: string, input: UpdateProject) =>
      change(`${projectsPath}/${id}`, 200, () => ctx.bus.call(leadsRpc.updateProject, identity, { id, ...input })),
    deliverProject: (id: string) =>
      change(`${projectsPath}/${id}/deliver`, 200, () => ctx.bus.call(leadsRpc.deliverProject, identity, { id })),
    lead,
    /**
     * The enabled webhook endpoints an event of this type goes to (subscribed to it or to every event): a
     * confirmation page names them. Undefined when the webhooks service cannot say (down, or a plan without
     * webhooks): the page says so rather than name none.
     */
    receivers: async (eventType: 'invoice.sent' | 'project.delivered') => {
      try {
        const endpoints = await ctx.bus.call(webhooksRpc.listEndpoints, identity, { limit: 100 });
        return endpoints.data.filter(
          (endpoint) => endpoint.status === 'enabled' && (endpoint.event_types.includes('*') || endpoint.event_types.includes(eventType)),
        );
      } catch (error) {
        ctx.logger.warn({ err: error }, 'webhook endpoints not read for a confirmation');
        return undefined;
      }
    },
    /**
     * What a record's page shows around it: its customer, and its events that went to webhook endpoints with
     * their deliveries (as a call's page shows them). The page stands without the webhooks log: its section
     * says the service did not answer.
     */
    around: async (record: { id: string; lead_id: string | null }) => {
      const [customer, events] = await Promise.all([
        lead(record.lead_id),
        ctx.bus.call(webhooksRpc.listRecordEvents, identity, { record_id: record.id }).catch((error: unknown) => {
          ctx.logger.warn({ err: error, record_id: record.id }, 'webhook events of the record not read');
          return undefined;
        }),
      ]);
      return { lead: customer, events };
    },
  };
}
export type OrganizationBilling = Awaited<ReturnType<typeof billingFor>>;
