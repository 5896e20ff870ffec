import { type HttpApp, identityOf } from '@voice/kit';
import {
  createInvoiceSchema,
  deletedSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  invoicePageSchema,
  invoiceSchema,
  leadsRpc,
  listInvoicesQuerySchema,
  updateInvoiceSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
import { deleteInvoice, draftInvoice, getInvoice, markInvoicePaid, sendInvoice, updateInvoice, voidInvoice } from '../domain/invoices.js';
import { listInvoices } from '../store/invoices.js';
import { once } from './common.js';

const params = z.object({ id: idSchema('invoice') });
const tags = ['invoices'];

export function invoiceRoutes(app: HttpApp, deps: LeadsDeps): void {
  app.get(
    '/api/v1/invoices',
    {
      schema: {
        tags,
        summary: 'List invoices by status, customer or workspace',
        querystring: listInvoicesQuerySchema,
        response: { 200: invoicePageSchema },
      },
      config: { operation: leadsRpc.listInvoices },
    },
    async (request) => listInvoices(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.post(
    '/api/v1/invoices',
    {
      schema: {
        tags,
        summary: 'Draft an invoice; totals are computed from the lines (half-up per line)',
        headers: idempotencyKeyHeadersSchema,
        body: createInvoiceSchema,
        response: { 201: invoiceSchema },
      },
      config: { operation: leadsRpc.draftInvoice },
    },
    async (request, reply) => once(deps, request, reply, 'invoices.create', (identity) => draftInvoice(deps, identity, request.body)),
  );
  app.get(
    '/api/v1/invoices/:id',
    {
      schema: { tags, summary: 'Get an invoice with its lines', params, response: { 200: invoiceSchema } },
      config: { operation: leadsRpc.getInvoice },
    },
    async (request) => getInvoice(deps, identityOf(request), request.params.id),
  );
  app.patch(
    '/api/v1/invoices/:id',
    {
      schema: { tags, summary: 'Change a draft invoice', params, body: updateInvoiceSchema, response: { 200: invoiceSchema } },
      config: { operation: leadsRpc.updateInvoice },
    },
    async (request) => updateInvoice(deps, identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/invoices/:id',
    {
      schema: { tags, summary: 'Delete a draft invoice', params, response: { 200: deletedSchema('invoice') } },
      config: { operation: leadsRpc.deleteInvoice },
    },
    async (request) => deleteInvoice(deps, identityOf(request), request.params.id),
  );
  app.post(
    '/api/v1/invoices/:id/send',
    {
      schema: {
        tags,
        summary: 'Send a draft invoice to its customer (irreversible)',
        params,
        headers: idempotencyKeyHeadersSchema,
        response: { 200: invoiceSchema },
      },
      config: { operation: leadsRpc.sendInvoice },
    },
    async (request, reply) =>
      once(deps, request, reply, 'invoices.send', (identity) => sendInvoice(deps, identity, request.params.id), 200),
  );
  app.post(
    '/api/v1/invoices/:id/pay',
    {
      schema: { tags, summary: 'Mark a sent invoice paid', params, response: { 200: invoiceSchema } },
      config: { operation: leadsRpc.markInvoicePaid },
    },
    async (request) => markInvoicePaid(deps, identityOf(request), request.params.id),
  );
  app.post(
    '/api/v1/invoices/:id/void',
    {
      schema: { tags, summary: 'Void a draft or sent invoice', params, response: { 200: invoiceSchema } },
      config: { operation: leadsRpc.voidInvoice },
    },
    async (request) => voidInvoice(deps, identityOf(request), request.params.id),
  );
}
