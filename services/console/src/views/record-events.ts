import type { RecordEvent } from '@voice/proto';
import { badge, dataTable, time } from './components.js';
import type { Formatter } from './format.js';
import { type Html, html } from './html.js';

/**
 * The events a record (a call, a message, a lead, an invoice, a project) produced that went to webhook endpoints, each delivery
 * with its endpoint, status, attempts and last answer; `record` names it in the sentences and prefixes the ids
 * (`call-no-events`, `call-events-table`).
 */
export function recordEventsSection(
  format: Formatter,
  events: { data: RecordEvent[]; has_more: boolean } | undefined,
  record: 'call' | 'message' | 'lead' | 'invoice' | 'project',
): Html {
  if (!events) return html`<p class="muted">The webhooks service did not answer; reload to try again.</p>`;
  if (events.data.length === 0) {
    return html`<p class="muted" id="${record}-no-events">No webhook endpoint was sent this ${record}'s events. <a href="/dashboard/webhooks">Add an endpoint</a> to receive them.</p>`;
  }
  return dataTable({
    id: `${record}-events-table`,
    caption: 'Events and their webhook deliveries',
    captionHidden: true,
    head: html`<th scope="col">Event</th><th scope="col">Time</th><th scope="col">Endpoint</th><th scope="col">Delivery</th><th scope="col">Attempts</th><th scope="col">Last answer</th>`,
    rows: events.data.flatMap((event) =>
      event.deliveries.map(
        (delivery) => html`<tr>
          <td><code>${event.type}</code></td>
          <td class="nowrap">${time(format, event.created_at)}</td>
          <td><a href="/dashboard/webhooks/${delivery.endpoint_id}">${delivery.endpoint_url}</a></td>
          <td>${badge(delivery.status)}</td>
          <td class="num">${format.number(delivery.attempt_count)}</td>
          <td>${delivery.response_status === null ? (delivery.last_error ?? '—') : `HTTP ${delivery.response_status}`}</td>
        </tr>`,
      ),
    ),
  });
}
