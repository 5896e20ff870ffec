import type { Bus } from '@voice/kit';
import { planLimits } from '@voice/proto';
import type { FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../domain/context.js';
import { auditFiltersOf, auditLogFor, auditQueryOf } from '../domain/usage-audit.js';
import { csvLine } from '../http/csv.js';
import { sendPage } from '../http/pages.js';
import { signedInOf } from '../http/session.js';
import { auditLogPage } from '../views/audit-log.js';
import { usagePage } from '../views/usage.js';

const pageSize = 50;
/** A download reads the gateway's pages of 100 until this many rows, so one click cannot read a year unbounded. */
const csvMaxRows = 10_000;
const csvColumns = [
  'created_at',
  'actor_type',
  'key_id',
  'method',
  'path',
  'status',
  'latency_ms',
  'request_id',
  'client_address',
] as const;

/** Usage and the audit log: read-only pages any member may see, each a NATS call to the gateway for the person. */
export function usageAuditRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  app.get('/usage', { config: { access: 'signed-in' } }, async (request, reply) => {
    const gateway = await auditLogFor(ctx, signedInOf(request), request.id);
    const history = await gateway.usage();
    return sendPage(reply, 200, usagePage(signedInOf(request), { history, today: ctx.now().toISOString().slice(0, 10) }));
  });

  app.get('/audit-log', { config: { access: 'signed-in' } }, async (request, reply) => {
    const filters = auditFiltersOf(request.query);
    const gateway = await auditLogFor(ctx, signedInOf(request), request.id);
    const [records, keys] = await Promise.all([gateway.page(auditQueryOf(filters, pageSize)), gateway.keys()]);
    const retentionDays = planLimits[gateway.organization.plan].auditRetentionDays;
    return sendPage(reply, 200, auditLogPage(signedInOf(request), { filters, records, keys, retentionDays }));
  });

  app.get('/audit-log.csv', { config: { access: 'signed-in' } }, async (request, reply) => {
    const filters = auditFiltersOf(request.query);
    const gateway = await auditLogFor(ctx, signedInOf(request), request.id);
    let text = csvLine([...csvColumns]);
    let cursor = filters.cursor;
    for (let rows = 0; rows < csvMaxRows; ) {
      const records = await gateway.page(auditQueryOf({ ...filters, cursor }, Math.min(100, csvMaxRows - rows)));
      for (const record of records.data) text += csvLine(csvColumns.map((column) => record[column]));
      rows += records.data.length;
      if (!records.next_cursor) break;
      cursor = records.next_cursor;
    }
    return reply
      .status(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="audit-log-${gateway.organization.id}.csv"`)
      .send(text);
  });
}
