import { ApiError, newId } from '@voice/kit';
import type { CreateInvoice, Identity, Invoice, UpdateInvoice } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import type { Invoice as InvoiceRow } from '../generated/prisma/client.js';
import { deleteInvoiceIn, findInvoice, insertInvoice, updateInvoiceIn } from '../store/invoices.js';
import { assertLead, assertWorkspace } from '../store/references.js';
import { withEvents } from './events.js';
import { priceInvoice } from './invoice-math.js';
import { toInvoice } from './records.js';

// An invoice's life: draft (editable, deletable) → sent → paid; a draft or a sent invoice can be voided.
// Only a draft changes; after that the invoice is a record of what the customer was sent.

const dateOnly = (value: string | null | undefined) => (value ? new Date(`${value}T00:00:00.000Z`) : null);

function notInStatus(row: InvoiceRow, action: string, allowed: string): ApiError {
  return new ApiError('conflict', `This invoice is ${row.status}; only ${allowed} invoices can be ${action}.`, { param: 'id' });
}

export async function getInvoice(deps: LeadsDeps, identity: Identity, id: string): Promise<Invoice> {
  return toInvoice(await findInvoice(deps.prisma, identity.org_id, id));
}

export async function draftInvoice(deps: LeadsDeps, identity: Identity, input: CreateInvoice): Promise<Invoice> {
  const orgId = identity.org_id;
  await assertLead(deps.prisma, orgId, input.lead_id);
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const priced = priceInvoice(input.lines);
  const row = await insertInvoice(deps.prisma, orgId, {
    id: newId('invoice'),
    leadId: input.lead_id,
    workspaceId: input.workspace_id ?? null,
    status: 'draft',
    currency: input.currency,
    lines: priced.lines,
    subtotal: priced.subtotal,
    tax: priced.tax,
    total: priced.total,
    dueDate: dateOnly(input.due_date),
    memo: input.memo ?? null,
    metadata: input.metadata,
  });
  return toInvoice(row);
}

export async function updateInvoice(deps: LeadsDeps, identity: Identity, id: string, input: UpdateInvoice): Promise<Invoice> {
  const orgId = identity.org_id;
  const before = await findInvoice(deps.prisma, orgId, id);
  if (before.status !== 'draft') throw notInStatus(before, 'changed', 'draft');
  await assertLead(deps.prisma, orgId, input.lead_id);
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const priced = input.lines === undefined ? undefined : priceInvoice(input.lines);
  const after = await updateInvoiceIn(deps.prisma, orgId, id, ['draft'], {
    ...(input.lead_id !== undefined ? { leadId: input.lead_id } : {}),
    ...(input.workspace_id !== undefined ? { workspaceId: input.workspace_id } : {}),
    ...(input.currency !== undefined ? { currency: input.currency } : {}),
    ...(priced ? { lines: priced.lines, subtotal: priced.subtotal, tax: priced.tax, total: priced.total } : {}),
    ...(input.due_date !== undefined ? { dueDate: dateOnly(input.due_date) } : {}),
    ...(input.memo !== undefined ? { memo: input.memo } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
  });
  if (!after) throw notInStatus(await findInvoice(deps.prisma, orgId, id), 'changed', 'draft');
  return toInvoice(after);
}

export async function deleteInvoice(deps: LeadsDeps, identity: Identity, id: string) {
  const orgId = identity.org_id;
  const before = await findInvoice(deps.prisma, orgId, id);
  if (!(await deleteInvoiceIn(deps.prisma, orgId, id, ['draft']))) throw notInStatus(before, 'deleted (void it instead)', 'draft');
  return { id, object: 'invoice' as const, deleted: true as const };
}

/**
 * Sends a draft to its customer: the invoice is frozen and `invoice.sent` carries it to the delivery
 * channels (webhooks, messaging). Needs a customer and at least one line.
 */
export async function sendInvoice(deps: LeadsDeps, identity: Identity, id: string): Promise<Invoice> {
  const orgId = identity.org_id;
  const before = await findInvoice(deps.prisma, orgId, id);
  if (before.status !== 'draft') throw notInStatus(before, 'sent', 'draft');
  if (before.leadId === null)
    throw new ApiError('invalid_request', 'The invoice has no customer; set lead_id first.', { param: 'lead_id' });
  if ((before.lines as unknown[]).length === 0)
    throw new ApiError('invalid_request', 'The invoice has no lines; add at least one.', { param: 'lines' });
  return withEvents(deps, async (tx, events) => {
    const after = await updateInvoiceIn(tx, orgId, id, ['draft'], { status: 'sent', sentAt: new Date() });
    if (!after) throw notInStatus(await findInvoice(tx, orgId, id), 'sent', 'draft');
    const invoice = toInvoice(after);
    events.add('invoice.sent', orgId, invoice, { aggregateId: id });
    return invoice;
  });
}

export async function markInvoicePaid(deps: LeadsDeps, identity: Identity, id: string): Promise<Invoice> {
  const orgId = identity.org_id;
  const after = await updateInvoiceIn(deps.prisma, orgId, id, ['sent'], { status: 'paid', paidAt: new Date() });
  if (!after) throw notInStatus(await findInvoice(deps.prisma, orgId, id), 'marked paid', 'sent');
  return toInvoice(after);
}

export async function voidInvoice(deps: LeadsDeps, identity: Identity, id: string): Promise<Invoice> {
  const orgId = identity.org_id;
  const after = await updateInvoiceIn(deps.prisma, orgId, id, ['draft', 'sent'], { status: 'void', voidedAt: new Date() });
  if (!after) throw notInStatus(await findInvoice(deps.prisma, orgId, id), 'voided', 'draft or sent');
  return toInvoice(after);
}
