import type { auditPageSchema, ConsoleKey } from '@voice/proto';
import type { z } from 'zod';
import type { SignedIn } from '../domain/sessions.js';
import { type AuditFilters, filterQueryString } from '../domain/usage-audit.js';
import { html } from './html.js';
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

function filterForm(view: AuditLogView) {
  const { filters } = view;
  return html`<form method="get" action="${auditLogPath}" class="filters" aria-label="Filter the audit log">
    <label for="audit-key">Key</label>
    <select id="audit-key" name="key_id">
      ${option('', 'Any key', filters.key_id)}
      ${view.keys.map((key) => option(key.id, `${key.name || key.id} (${key.display_prefix}${key.display_suffix})`, filters.key_id))}
    </select>
    <label for="audit-actor">Actor</label>
    <select id="audit-actor" name="actor_type">
      ${option('', 'API calls and console actions', filters.actor_type)}
      ${option('key', 'API calls (key)', filters.actor_type)}
      ${option('grant', 'API calls (connected app)', filters.actor_type)}
      ${option('user', 'Console actions (person)', filters.actor_type)}
      ${option('system', 'The platform’s own (ended grants)', filters.actor_type)}
    </select>
    <label for="audit-status">Status</label>
    <select id="audit-status" name="status_class">
      ${option('', 'Any status', filters.status_class)}
      ${option('2xx', '2xx success', filters.status_class)}
      ${option('4xx', '4xx client error', filters.status_class)}
      ${option('5xx', '5xx server error', filters.status_class)}
    </select>
    <label for="audit-path">Path starts with</label>
    <input id="audit-path" name="path_prefix" type="text" maxlength="200" placeholder="/api/v1/phone" value="${filters.path_prefix ?? ''}">
    <label for="audit-from">From (UTC day)</label>
    <input id="audit-from" name="from" type="date" value="${filters.from ?? ''}">
    <label for="audit-to">To (UTC day)</label>
    <input id="audit-to" name="to" type="date" value="${filters.to ?? ''}">
    <button type="submit">Filter</button>
  </form>`;
}

export function auditLogPage(signedIn: SignedIn, view: AuditLogView) {
  const { records, filters } = view;
  const retention =
    view.retentionDays === null ? 'The plan keeps records without a time limit.' : `The plan keeps records for ${view.retentionDays} days.`;
  const csvQuery = filterQueryString(filters);
  return page({
    title: 'Audit log',
    signedIn,
    path: auditLogPath,
    body: html`<h1>Audit log</h1>
      <p>API calls made with the organization's keys and changes made in this console, newest first. ${retention}</p>
      ${filterForm(view)}
      <p><a id="audit-csv" href="${auditLogPath}.csv${csvQuery ? `?${csvQuery}` : ''}" download>Download these records as CSV</a></p>
      ${
        records.data.length === 0
          ? html`<p id="audit-empty">No records match.</p>`
          : html`<table id="audit-records">
          <caption class="visually-hidden">Audit records</caption>
          <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Actor</th><th scope="col">Key or person</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Request</th></tr></thead>
          <tbody>
            ${records.data.map(
              (record) => html`<tr>
                <td>${record.created_at.replace('T', ' ').slice(0, 19)}</td>
                <td>${record.actor_type}${record.reason ? html`<br><small>${record.reason}</small>` : ''}</td>
                <td><code>${record.key_id}</code></td>
                <td>${record.method}</td>
                <td><code>${record.path}</code></td>
                <td>${record.status}</td>
                <td>${record.latency_ms} ms</td>
                <td><code>${record.request_id}</code></td>
              </tr>`,
            )}
          </tbody>
        </table>`
      }
      ${records.next_cursor ? html`<p><a id="audit-next" href="${auditLogPath}?${filterQueryString(filters, records.next_cursor)}" rel="next">Older records</a></p>` : ''}`,
  });
}
