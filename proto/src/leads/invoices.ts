// Invoices: lines, totals computed half-up per line, and the draft → sent → paid or void life.
import { z } from 'zod';
import { currencySchema, metadataSchema, timestampSchema } from '../common.js';
import { idSchema } from '../ids.js';
import { listQuerySchema, pageSchema } from '../pagination.js';
import { calendarDateSchema } from './shared.js';

export const invoiceStatuses = ['draft', 'sent', 'paid', 'void'] as const;

/** Quantities carry at most three decimals (1.5 hours, 0.125 kg), so they are exact in thousandths. */
export const invoiceQuantitySchema = z
  .number()
  .positive()
  .max(1_000_000)
  .refine((value) => Math.abs(value * 1000 - Math.round(value * 1000)) < 1e-6, 'at most 3 decimal places');

export const invoiceLineInputSchema = z
  .object({
    description: z.string().trim().min(1).max(500),
    quantity: invoiceQuantitySchema.default(1),
    unit_amount: z.number().int().min(0).max(1_000_000_000_000).describe('Price of one unit in minor units (cents)'),
    tax_rate_bps: z.number().int().min(0).max(10_000).default(0).describe('Tax rate in basis points: 825 = 8.25%'),
  })
  .strict();
export type InvoiceLineInput = z.infer<typeof invoiceLineInputSchema>;

export const invoiceLineSchema = invoiceLineInputSchema.extend({
  subtotal: z.number().int().describe('quantity × unit_amount, rounded half-up to a minor unit'),
  tax: z.number().int().describe('subtotal × tax_rate_bps / 10000, rounded half-up to a minor unit'),
  total: z.number().int().describe('subtotal + tax'),
});
export type InvoiceLine = z.infer<typeof invoiceLineSchema>;

export const invoiceSchema = z
  .object({
    id: idSchema('invoice'),
    object: z.literal('invoice'),
    lead_id: z.string().nullable().describe('The customer; null once the lead was deleted with its personal data'),
    workspace_id: z.string().nullable(),
    status: z.enum(invoiceStatuses),
    currency: currencySchema,
    lines: z.array(invoiceLineSchema),
    subtotal: z.number().int(),
    tax: z.number().int(),
    total: z.number().int().describe('Sum of the lines’ totals, in minor units'),
    due_date: calendarDateSchema.nullable(),
    memo: z.string().nullable(),
    metadata: metadataSchema,
    sent_at: timestampSchema.nullable(),
    paid_at: timestampSchema.nullable(),
    voided_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Invoice' });
export type Invoice = z.infer<typeof invoiceSchema>;

export const createInvoiceSchema = z
  .object({
    lead_id: idSchema('lead'),
    workspace_id: idSchema('workspace').nullable().optional(),
    currency: currencySchema.default('USD'),
    lines: z.array(invoiceLineInputSchema).max(100).default([]),
    due_date: calendarDateSchema.nullable().optional(),
    memo: z.string().trim().max(2000).nullable().optional(),
    metadata: metadataSchema.default({}),
  })
  .strict();
export type CreateInvoice = z.infer<typeof createInvoiceSchema>;

export const updateInvoiceSchema = z
  .object({
    lead_id: idSchema('lead').optional(),
    workspace_id: idSchema('workspace').nullable().optional(),
    currency: currencySchema.optional(),
    lines: z.array(invoiceLineInputSchema).max(100).optional().describe('Replaces every line'),
    due_date: calendarDateSchema.nullable().optional(),
    memo: z.string().trim().max(2000).nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type UpdateInvoice = z.infer<typeof updateInvoiceSchema>;

export const listInvoicesQuerySchema = listQuerySchema.extend({
  status: z.enum(invoiceStatuses).optional(),
  lead_id: idSchema('lead').optional(),
  workspace_id: idSchema('workspace').optional(),
});
export type ListInvoicesQuery = z.infer<typeof listInvoicesQuerySchema>;
export const invoicePageSchema = pageSchema(invoiceSchema).meta({ id: 'InvoicePage' });
