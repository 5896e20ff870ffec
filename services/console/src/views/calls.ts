import {
  type Call,
  type CallListItem,
  type CallStatus,
  callOutcomes,
  callStatuses,
  type RecordEvent,
  type TranscriptTurn,
  type TwoWayPage,
} from '@voice/proto';
import { type CallFilters, callFilterNames, callQueryString } from '../domain/calls.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import {
  badge,
  csrfField,
  dataTable,
  emptyState,
  type FieldErrors,
  field,
  formatFor,
  notice,
  pageHeader,
  pager,
  time,
} from './components.js';
import { confirmPage } from './confirm.js';
import type { Formatter } from './format.js';
import { type Html, html, type Renderable } from './html.js';
import { page } from './layout.js';
import { leadHref } from './list-links.js';
import { recordEventsSection } from './record-events.js';

export const callsPath = '/dashboard/calls';
export const callPath = (id: string) => `${callsPath}/${id}`;
export const newCallPath = `${callsPath}/new`;

/** The statuses a person may cancel a call in (telephony's rule; a page only offers the button then). */
export const cancelableStatuses: readonly CallStatus[] = ['queued', 'ringing'];

/** A lead as the calls pages show it: its id, linking to its page. */
export function leadRef(leadId: string | null): Html | string {
  return leadId ? html`<a href="${leadHref(leadId)}"><code class="lead-ref">${leadId}</code></a>` : '—';
}

/** A status or reason in words: `in_progress` as `in progress`. */
export const words = (value: string) => value.replaceAll('_', ' ');

/** Seconds as minutes and seconds, e.g. `4:05`; calls are minutes long. */
export function callDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

const cost = (format: Formatter, value: Call['cost']) => (value ? format.money(value.amount / 100, value.currency) : '—');

/** An `<option>`, selected when it is the current value (empty: the "any" choice). */
export const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}" ${value === (current ?? '') ? html`selected` : ''}>${label}</option>`;

/** One labelled control of a list's filter form. */
export const filterField = (id: string, label: string, control: Html) =>
  html`<div class="filter-field"><label for="${id}">${label}</label>${control}</div>`;

function filterForm(filters: CallFilters, timeZone: string): Html {
  return html`<form method="get" action="${callsPath}" class="filters" aria-label="Filter the calls">
    ${filterField(
      'calls-direction',
      'Direction',
      html`<select id="calls-direction" name="direction">
        ${option('', 'Both directions', filters.direction)}${option('inbound', 'Inbound', filters.direction)}${option('outbound', 'Outbound', filters.direction)}
      </select>`,
    )}
    ${filterField(
      'calls-status',
      'Status',
      html`<select id="calls-status" name="status">
        ${option('', 'Any status', filters.status)}${callStatuses.map((status) => option(status, words(status), filters.status))}
      </select>`,
    )}
    ${filterField(
      'calls-outcome',
      'Outcome',
      html`<select id="calls-outcome" name="outcome">
        ${option('', 'Any outcome', filters.outcome)}${callOutcomes.map((outcome) => option(outcome, words(outcome), filters.outcome))}
      </select>`,
    )}
    ${filterField(
      'calls-number',
      'Number contains',
      html`<input id="calls-number" name="number" type="search" inputmode="tel" maxlength="24" placeholder="5550123" value="${filters.number ?? ''}">`,
    )}
    ${filterField(
      'calls-lead',
      'Lead id',
      html`<input id="calls-lead" name="lead_id" type="text" maxlength="64" placeholder="lead_…" value="${filters.lead_id ?? ''}">`,
    )}
    ${filterField('calls-from', `From (${timeZone})`, html`<input id="calls-from" name="from" type="date" value="${filters.from ?? ''}">`)}
    ${filterField('calls-to', `To (${timeZone})`, html`<input id="calls-to" name="to" type="date" value="${filters.to ?? ''}">`)}
    <button type="submit" class="primary">Filter</button>
    <a href="${callsPath}" class="button">Clear</a>
  </form>`;
}

function callRow(format: Formatter, call: CallListItem): Html {
  return html`<tr id="row-${call.id}">
    <td class="nowrap"><a href="${callPath(call.id)}">${time(format, call.created_at)}</a></td>
    <td>${call.direction}</td>
    <td class="nowrap">${format.phone(call.from)}</td>
    <td class="nowrap">${format.phone(call.to)}</td>
    <td>${leadRef(call.lead_id)}</td>
    <td>${badge(call.status)}</td>
    <td>${call.outcome ? words(call.outcome) : '—'}</td>
    <td class="num">${callDuration(call.duration_seconds)}</td>
    <td class="num">${cost(format, call.cost)}</td>
    <td>${call.end_reason ? words(call.end_reason) : '—'}</td>
  </tr>`;
}

export interface CallsListView {
  filters: CallFilters;
  calls: TwoWayPage<CallListItem>;
}

export function callsListPage(signedIn: SignedIn, view: CallsListView) {
  const { filters, calls } = view;
  const format = formatFor(signedIn);
  const query = callQueryString(filters);
  const filtered = callFilterNames.some((name) => filters[name] !== undefined);
  const manager = canManage(signedIn.role);
  const empty = filtered
    ? emptyState({
        id: 'calls-empty',
        title: 'No calls match these filters.',
        next: html`Widen them (any status, an earlier day, fewer digits), or <a href="${callsPath}">clear the filters</a>.`,
      })
    : emptyState({
        id: 'calls-empty',
        title: 'No calls yet.',
        next: html`${manager ? html`<a href="${newCallPath}">Queue one</a>, or` : 'Queue one through the API, or'} connect an AI agent: <a href="/#mcp">the MCP server</a> places calls with an <a href="/dashboard/settings/api">API key</a>.`,
      });
  return page({
    title: 'Calls',
    signedIn,
    path: callsPath,
    live: true,
    body: html`${pageHeader({
      title: 'Calls',
      lead: 'Every call of the organization, inbound and outbound, newest first. The list follows new calls and status changes as they happen.',
      actions: html`${manager ? html`<a id="calls-new" class="button" href="${newCallPath}">Queue a call</a>` : ''}
        <a id="calls-csv" class="button" href="${callsPath}/export.csv${query ? `?${query}` : ''}" download>Download as CSV</a>`,
    })}
      ${filterForm(filters, format.audience.timeZone)}
      <div id="calls-live" data-live="call" data-live-label="Calls">
        ${
          calls.data.length === 0
            ? empty
            : dataTable({
                id: 'calls-table',
                caption: 'Calls',
                captionHidden: true,
                head: html`<th scope="col">Time (${format.audience.timeZone})</th><th scope="col">Direction</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Lead</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Cost</th><th scope="col">End reason</th>`,
                rows: calls.data.map((call) => callRow(format, call)),
              })
        }
        ${pager({
          label: 'Pages of calls',
          newest: calls.prev_cursor ? `${callsPath}${query ? `?${query}` : ''}` : undefined,
          newer: calls.prev_cursor
            ? { href: `${callsPath}?${callQueryString(filters, calls.prev_cursor)}`, id: 'calls-newer', text: 'Newer calls' }
            : undefined,
          older: calls.next_cursor
            ? { href: `${callsPath}?${callQueryString(filters, calls.next_cursor)}`, id: 'calls-older', text: 'Older calls' }
            : undefined,
        })}
      </div>`,
  });
}

const speakers: Record<TranscriptTurn['speaker'], string> = { agent: 'Agent', contact: 'Contact', system: 'Note' };

function transcript(call: Call): Html {
  if (call.transcript_turns && call.transcript_turns.length > 0) {
    return html`<ol class="transcript" aria-label="Transcript">
      ${call.transcript_turns.map(
        (turn) => html`<li class="turn ${turn.speaker}">
          <p class="speaker">${speakers[turn.speaker]}${turn.offset_seconds === null ? '' : html` <span class="muted">${callDuration(Math.round(turn.offset_seconds))}</span>`}</p>
          <p>${turn.text}</p>
        </li>`,
      )}
    </ol>`;
  }
  if (call.transcript) return html`<pre class="transcript-text">${call.transcript}</pre>`;
  return html`<p class="muted" id="call-no-transcript">${call.status === 'in_progress' ? 'The transcript comes when the call ends.' : 'No transcript.'}</p>`;
}

/** The recording's player; the page's Content-Security-Policy admits its origin (`recordingOrigin`). */
function recording(call: Call): Html {
  const origin = recordingOrigin(call);
  if (!call.recording_url || !origin) return html`<p class="muted">No recording.</p>`;
  return html`<audio id="call-recording" controls preload="none" src="${call.recording_url}">
    <a href="${call.recording_url}">Download the recording</a>
  </audio>`;
}

/** The origin a call's recording plays from: https only (or this console's own), else no player. */
export function recordingOrigin(call: Pick<Call, 'recording_url'>): string | undefined {
  if (!call.recording_url) return undefined;
  try {
    const url = new URL(call.recording_url);
    return url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export interface CallView {
  call: Call;
  events: { data: RecordEvent[]; has_more: boolean } | undefined;
}

const heading = (format: Formatter, call: Call) =>
  call.direction === 'outbound' ? `Call to ${format.phone(call.to)}` : `Call from ${format.phone(call.from)}`;

export function callPage(signedIn: SignedIn, view: CallView) {
  const { call } = view;
  const format = formatFor(signedIn);
  const region = (id: string, label: string, content: Renderable) =>
    html`<div id="${id}" data-live="call" data-live-resource="${call.id}" data-live-label="${label}">${content}</div>`;
  const metadata = Object.entries(call.metadata);
  const cancelable = canManage(signedIn.role) && cancelableStatuses.includes(call.status);
  return page({
    title: heading(format, call),
    signedIn,
    path: callsPath,
    live: true,
    body: html`<p><a href="${callsPath}">← Calls</a></p>
      ${region(
        'call-overview',
        'Call status',
        html`${pageHeader({
          title: heading(format, call),
          lead: html`${badge(call.status, undefined, 'call-status')} <code>${call.id}</code>`,
          actions: cancelable ? html`<a id="call-cancel" class="button" href="${callPath(call.id)}/cancel">Cancel the call</a>` : '',
        })}
        <dl id="call-facts">
          <dt>Direction</dt><dd>${call.direction}</dd>
          <dt>From</dt><dd>${format.phone(call.from)}</dd>
          <dt>To</dt><dd>${format.phone(call.to)}</dd>
          <dt>Lead</dt><dd>${leadRef(call.lead_id)}</dd>
          <dt>Workspace</dt><dd>${call.workspace_id ? html`<code>${call.workspace_id}</code>` : '—'}</dd>
          <dt>Outcome</dt><dd>${call.outcome ? words(call.outcome) : '—'}</dd>
          <dt>Duration</dt><dd>${callDuration(call.duration_seconds)}</dd>
          <dt>Cost</dt><dd id="call-cost">${cost(format, call.cost)}</dd>
          <dt>End reason</dt><dd>${call.end_reason ? words(call.end_reason) : '—'}</dd>
          <dt>Placed by</dt><dd>${call.source === 'inbound' ? 'the caller' : call.source}</dd>
        </dl>`,
      )}
      <section aria-labelledby="call-timeline-heading">
        <h2 id="call-timeline-heading">Timeline</h2>
        ${region(
          'call-timeline',
          'Timeline',
          html`<ol class="timeline">
            ${call.timeline.map((change) => html`<li>${badge(change.status)} ${time(format, change.at)}</li>`)}
          </ol>`,
        )}
      </section>
      <section aria-labelledby="call-conversation-heading">
        <h2 id="call-conversation-heading">Conversation</h2>
        ${region(
          'call-conversation',
          'Transcript',
          html`<h3>Summary</h3>
          <p id="call-summary">${call.summary ?? html`<span class="muted">No summary.</span>`}</p>
          <h3>Recording</h3>
          ${recording(call)}
          <h3>Transcript</h3>
          ${transcript(call)}`,
        )}
      </section>
      <section aria-labelledby="call-metadata-heading">
        <h2 id="call-metadata-heading">Metadata</h2>
        ${
          metadata.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<dl id="call-metadata">${metadata.map(([key, value]) => html`<dt>${key}</dt><dd><code>${JSON.stringify(value)}</code></dd>`)}</dl>`
        }
      </section>
      <section aria-labelledby="call-events-heading">
        <h2 id="call-events-heading">Events and webhook deliveries</h2>
        ${region('call-events', 'Events', recordEventsSection(format, view.events, 'call'))}
      </section>`,
  });
}

export interface QueueFormView {
  values: { to: string; lead_id: string; workspace_id: string };
  formKey: string;
  errors: FieldErrors;
  error?: string | undefined;
}

export function queueCallPage(signedIn: SignedIn, view: QueueFormView) {
  const { values, errors } = view;
  return page({
    title: 'Queue a call',
    signedIn,
    path: callsPath,
    body: html`<p><a href="${callsPath}">← Calls</a></p>
      ${pageHeader({
        title: 'Queue a call',
        lead: 'The dialer places it from the organization’s number, unless the number is on the do-not-call list.',
      })}
      ${notice('error', view.error)}
      <form method="post" action="${callsPath}" class="stack panel" id="call-queue-form">
        ${csrfField(signedIn.csrfToken)}
        <input type="hidden" name="form_key" value="${view.formKey}">
        ${field({
          id: 'call-to',
          name: 'to',
          label: 'Number to call',
          type: 'tel',
          value: values.to,
          hint: 'In international form, with the country code: +14155550123.',
          error: errors.to,
          attributes: html`required maxlength="32" autocomplete="off"`,
        })}
        ${field({
          id: 'call-lead',
          name: 'lead_id',
          label: 'Lead id (optional)',
          value: values.lead_id,
          hint: 'The lead the call is about, e.g. lead_2x8Fq0aZ9kLm4Rt7.',
          error: errors.lead_id,
          attributes: html`maxlength="64"`,
        })}
        ${field({
          id: 'call-workspace',
          name: 'workspace_id',
          label: 'Workspace id (optional)',
          value: values.workspace_id,
          hint: 'The workspace it belongs to, e.g. ws_2x8Fq0aZ9kLm4Rt7.',
          error: errors.workspace_id,
          attributes: html`maxlength="64"`,
        })}
        <div class="actions"><button type="submit" id="call-queue" class="primary">Queue the call</button> <a href="${callsPath}" class="button">Back</a></div>
      </form>`,
  });
}

export function cancelCallConfirmPage(signedIn: SignedIn, call: Call) {
  const format = formatFor(signedIn);
  return confirmPage(signedIn, {
    title: 'Cancel the call',
    heading: `Cancel the ${words(call.status)} call to ${format.phone(call.to)}?`,
    path: callsPath,
    question:
      call.status === 'ringing'
        ? 'The phone is ringing now: the carrier hangs up before anyone answers. If someone answers first, the call goes on and cannot be canceled.'
        : 'The dialer will not place it. This cannot be undone; queue a new call to try again.',
    action: `${callPath(call.id)}/cancel`,
    buttonId: 'call-cancel-confirm',
    buttonLabel: 'Cancel the call',
    cancelHref: callPath(call.id),
    cancelLabel: 'Keep the call',
  });
}
