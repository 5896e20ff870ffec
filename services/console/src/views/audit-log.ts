import type { auditPageSchema, ConsoleKey } from '@voice/proto';
import type { z } from 'zod';
import type { SignedIn } from '../domain/sessions.js';
import { type AuditFilters, filterQueryString } from '../domain/usage-audit.js';
import { dataTable, emptyState, formatFor, pageHeader, pager, time } from './components.js';
import { type Html, html } from './html.js';
import { page } from './layout.js';

export const auditLogPath = '/dashboard/audit-log';

export interface AuditLogView {
  filters: AuditFilters;
  records: z.output<typeof auditPageSchema>;
  keys: ConsoleKey[];
  retentionDays: number | null;
}

const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}" ${value === (current ?? '') ? html`selected` : ''}>${label}</option>`;

/** One labelled control of the filter bar. */
const filterField = (id: string, label: string, control: Html) =>
  html`<div class="filter-field"><label for="${id}">${label}</label>${control}</div>`;

function filterForm(view: AuditLogView) {
  const { filters } = view;
  return html`<form method="get" action="${auditLogPath}" class="filters" aria-label="Filter the audit log">
    ${filterField(
      'audit-key',
      'Key',
      html`<select id="audit-key" name="key_id">
        ${option('', 'Any key', filters.key_id)}
        ${view.keys.map((key) => option(key.id, `${key.name || key.id} (${key.display_prefix}${key.display_suffix})`, filters.key_id))}
      </select>`,
    )}
    ${filterField(
      'audit-actor',
      'Actor',
      html`<select id="audit-actor" name="actor_type">
        ${option('', 'API calls and console actions', filters.actor_type)}
        ${option('key', 'API calls (key)', filters.actor_type)}
        ${option('grant', 'API calls (connected app)', filters.actor_type)}
        ${option('user', 'Console actions (person)', filters.actor_type)}
        ${option('system', 'The platform’s own (ended grants)', filters.actor_type)}
      </select>`,
    )}
    ${filterField(
      'audit-status',
      'Status',
      html`<select id="audit-status" name="status_class">
        ${option('', 'Any status', filters.status_class)}
        ${option('2xx', '2xx success', filters.status_class)}
        ${option('4xx', '4xx client error', filters.status_class)}
        ${option('5xx', '5xx server error', filters.status_class)}
      </select>`,
    )}
    ${filterField(
      'audit-path',
      'Path starts with',
      html`<input id="audit-path" name="path_prefix" type="text" maxlength="200" placeholder="/api/v1/phone" value="${filters.path_prefix ?? ''}">`,
    )}
    ${filterField('audit-from', 'From (UTC day)', html`<input id="audit-from" name="from" type="date" value="${filters.from ?? ''}">`)}
    ${filterField('audit-to', 'To (UTC day)', html`<input id="audit-to" name="to" type="date" value="${filters.to ?? ''}">`)}
    <button type="submit" class="primary">Filter</button>
  </form>`;
}

export function auditLogPage(signedIn: SignedIn, view: AuditLogView) {
  const { records, filters } = view;
  const retention =
    view.retentionDays === null ? 'The plan keeps records without a time limit.' : `The plan keeps records for ${view.retentionDays} days.`;
  const csvQuery = filterQueryString(filters);
  const format = formatFor(signedIn);
  return page({
    title: 'Audit log',
    signedIn,
    path: auditLogPath,
    body: html`${pageHeader({
      title: 'Audit log',
      lead: html`API calls made with the organization's keys and changes made in this console, newest first. ${retention}`,
      actions: html`<a id="audit-csv" class="button" href="${auditLogPath}.csv${csvQuery ? `?${csvQuery}` : ''}" download>Download these records as CSV</a>`,
    })}
      ${filterForm(view)}
      ${
        records.data.length === 0
          ? emptyState({
              id: 'audit-empty',
              title: 'No records match.',
              next: 'Widen the filters: another key, any status, an earlier day. Records older than the plan keeps are gone.',
            })
          : dataTable({
              id: 'audit-records',
              caption: 'Audit records',
              captionHidden: true,
              head: html`<th scope="col">Time (${format.audience.timeZone})</th><th scope="col">Actor</th><th scope="col">Key or person</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Request</th>`,
              rows: records.data.map(
                (record) => html`<tr>
                <td>${time(format, record.created_at)}</td>
                <td>${record.actor_type}${record.reason ? html`<br><small>${record.reason}</small>` : ''}</td>
                <td><code>${record.key_id}</code></td>
                <td>${record.method}</td>
                <td><code>${record.path}</code></td>
                <td>${record.status}</td>
                <td>${format.number(record.latency_ms)} ms</td>
                <td><code>${record.request_id}</code></td>
              </tr>`,
              ),
            })
      }
      ${pager({
        label: 'Pages of audit records',
        newest: filters.cursor ? `${auditLogPath}${csvQuery ? `?${csvQuery}` : ''}` : undefined,
        older: records.next_cursor
          ? { href: `${auditLogPath}?${filterQueryString(filters, records.next_cursor)}`, id: 'audit-next', text: 'Older records' }
          : undefined,
      })}`,
  });
}
