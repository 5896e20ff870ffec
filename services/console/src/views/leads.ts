import {
  type CallListItem,
  type CallStats,
  type Enrollment,
  type Invoice,
  type Lead,
  type LeadDetail,
  leadSources,
  leadStatuses,
  type Page,
  type Project,
  type RecordEvent,
  type Sequence,
  type Sms,
  type TwoWayPage,
} from '@voice/proto';
import { type LeadFilters, type LeadForm, leadFilterNames, leadQueryString, recentQualifiedHours } from '../domain/leads.js';
import { canManage } from '../domain/roles.js';
import { sequencePath } from '../domain/sequences.js';
import type { SignedIn } from '../domain/sessions.js';
import { callDuration, filterField, option, words } from './calls.js';
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
import { invoicePath, newInvoiceHref } from './invoices.js';
import { page } from './layout.js';
import { callHref, callsListHref, leadHref, leadsPath, messagesListHref } from './list-links.js';
import { moneyOf, smsStatusLabels } from './messages.js';
import { projectPath } from './projects.js';
import { recordEventsSection } from './record-events.js';

export { leadHref, leadsPath };
export const newLeadPath = `${leadsPath}/new`;
export const recentQualifiedPath = `${leadsPath}/recent-qualified`;
export const leadsCsvPath = `${leadsPath}/export.csv`;
export const enrollManyPath = `${leadsPath}/enroll`;
export const editLeadPath = (id: string) => `${leadHref(id)}/edit`;
export const deleteLeadPath = (id: string) => `${leadHref(id)}/delete`;
export const leadNotesPath = (id: string) => `${leadHref(id)}/notes`;
export const enrollLeadPath = (id: string) => `${leadHref(id)}/enroll`;

/** What a lead is called on a page: its name, else its e-mail, number or id. */
export function leadName(format: Formatter, lead: Pick<Lead, 'id' | 'name' | 'email' | 'phone'>): string {
  return lead.name ?? lead.email ?? (lead.phone ? format.phone(lead.phone) : lead.id);
}

/** The two ways to look at the leads: everything (filtered), or the saved view of recent qualified ones. */
function views(current: 'all' | 'recent-qualified'): Html {
  const tab = (href: string, id: string, label: string, active: boolean) =>
    html`<a href="${href}" id="${id}"${active ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="segmented leads-views" aria-label="Views of the leads">
    ${tab(leadsPath, 'leads-view-all', 'All leads', current === 'all')}
    ${tab(recentQualifiedPath, 'leads-view-recent-qualified', 'Recent qualified leads', current === 'recent-qualified')}
  </nav>`;
}

function filterForm(filters: LeadFilters, timeZone: string): Html {
  return html`<form method="get" action="${leadsPath}" class="filters" aria-label="Search and filter the leads">
    ${filterField(
      'leads-q',
      'Search',
      html`<input id="leads-q" name="q" type="search" maxlength="200" placeholder="Name, phone or e-mail" value="${filters.q ?? ''}">`,
    )}
    ${filterField(
      'leads-status',
      'Status',
      html`<select id="leads-status" name="status">
        ${option('', 'Any status', filters.status)}${leadStatuses.map((status) => option(status, words(status), filters.status))}
      </select>`,
    )}
    ${filterField(
      'leads-qualified',
      'Qualified',
      html`<select id="leads-qualified" name="qualified">
        ${option('', 'Either', filters.qualified)}${option('yes', 'Qualified', filters.qualified)}${option('no', 'Not qualified', filters.qualified)}
      </select>`,
    )}
    ${filterField(
      'leads-source',
      'Source',
      html`<select id="leads-source" name="source">
        ${option('', 'Any source', filters.source)}${leadSources.map((source) => option(source, words(source), filters.source))}
      </select>`,
    )}
    ${filterField(
      'leads-workspace',
      'Workspace id',
      html`<input id="leads-workspace" name="workspace_id" type="text" maxlength="64" placeholder="ws_…" value="${filters.workspace_id ?? ''}">`,
    )}
    ${filterField('leads-from', `Created from (${timeZone})`, html`<input id="leads-from" name="from" type="date" value="${filters.from ?? ''}">`)}
    ${filterField('leads-to', `Created to (${timeZone})`, html`<input id="leads-to" name="to" type="date" value="${filters.to ?? ''}">`)}
    <button type="submit" class="primary">Filter</button>
    <a href="${leadsPath}" class="button">Clear</a>
  </form>`;
}

/** One lead as a row; managers get a checkbox to enroll it with others (the bulk form's `lead_id`). */
function leadRow(format: Formatter, lead: Lead, selectable: boolean): Html {
  const name = leadName(format, lead);
  return html`<tr id="row-${lead.id}">
    ${
      selectable
        ? html`<td><input type="checkbox" name="lead_id" value="${lead.id}" form="leads-enroll-form" id="choose-${lead.id}" aria-label="Choose ${name}"></td>`
        : ''
    }
    <td><a href="${leadHref(lead.id)}">${name}</a></td>
    <td>${lead.company ?? '—'}</td>
    <td class="nowrap">${lead.phone ? format.phone(lead.phone) : '—'}</td>
    <td>${lead.email ?? '—'}</td>
    <td>${badge(lead.status)}</td>
    <td>${words(lead.source)}</td>
    <td class="nowrap">${time(format, lead.created_at)}</td>
  </tr>`;
}

function leadsTable(format: Formatter, leads: Lead[], selectable: boolean, caption: string): Html {
  return dataTable({
    id: 'leads-table',
    caption,
    captionHidden: true,
    head: html`${selectable ? html`<th scope="col"><span class="visually-hidden">Choose</span></th>` : ''}<th scope="col">Name</th><th scope="col">Company</th><th scope="col">Phone</th><th scope="col">E-mail</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Created (${format.audience.timeZone})</th>`,
    rows: leads.map((lead) => leadRow(format, lead, selectable)),
  });
}

/**
 * The bulk enroll form: the rows' checkboxes belong to it through their `form` attribute (the table stays
 * outside any form), so choosing leads and then a sequence posts `lead_id` once per chosen lead.
 */
function enrollManyForm(signedIn: SignedIn, sequences: Sequence[], returnTo: string): Html {
  if (sequences.length === 0) {
    return html`<p class="muted" id="leads-enroll-none">To enroll leads in a sequence, <a href="/dashboard/sequences">create a sequence</a> first.</p>`;
  }
  return html`<form method="post" action="${enrollManyPath}" id="leads-enroll-form" class="filter-bar leads-enroll" aria-label="Enroll the chosen leads">
    ${csrfField(signedIn.csrfToken)}
    <input type="hidden" name="return_to" value="${returnTo}">
    <label for="leads-enroll-sequence">Enroll the chosen leads in</label>
    <select id="leads-enroll-sequence" name="sequence_id" required>
      ${option('', 'Choose a sequence', '')}${sequences.map((sequence) => option(sequence.id, sequence.name, undefined))}
    </select>
    <button type="submit" id="leads-enroll">Enroll</button>
  </form>`;
}

export interface LeadsListView {
  filters: LeadFilters;
  leads: TwoWayPage<Lead>;
  /** The sequences a manager may enroll the chosen leads in (none for members). */
  sequences: Sequence[];
  /** The address of this very page, where an enroll returns. */
  here: string;
  error?: string | undefined;
}

export function leadsListPage(signedIn: SignedIn, view: LeadsListView) {
  const { filters, leads } = view;
  const format = formatFor(signedIn);
  const query = leadQueryString(filters);
  const filtered = leadFilterNames.some((name) => filters[name] !== undefined);
  const manager = canManage(signedIn.role);
  const empty = filtered
    ? emptyState({
        id: 'leads-empty',
        title: 'No leads match these filters.',
        next: html`Search with fewer letters or digits, widen the filters, or <a href="${leadsPath}">clear them</a>.`,
      })
    : emptyState({
        id: 'leads-empty',
        title: 'No leads yet.',
        next: html`${manager ? html`<a href="${newLeadPath}">Add one</a>, or` : 'Add one through the API, or'} let the voice agent take them: inbound calls and an <a href="/#mcp">AI agent</a> add leads as they go.`,
      });
  return page({
    title: 'Leads',
    signedIn,
    path: leadsPath,
    live: true,
    body: html`${pageHeader({
      title: 'Leads',
      lead: 'The people your organization talks to, newest first. New leads appear as they come in.',
      actions: html`${manager ? html`<a id="leads-new" class="button primary" href="${newLeadPath}">Add a lead</a>` : ''}
        <a id="leads-csv" class="button" href="${leadsCsvPath}${query ? `?${query}` : ''}" download>Download as CSV</a>`,
    })}
      ${views('all')}
      ${notice('error', view.error)}
      ${filterForm(filters, format.audience.timeZone)}
      ${manager && leads.data.length > 0 ? enrollManyForm(signedIn, view.sequences, view.here) : ''}
      <div id="leads-live" data-live="lead" data-live-label="Leads">
        ${leads.data.length === 0 ? empty : leadsTable(format, leads.data, manager && view.sequences.length > 0, 'Leads')}
        ${pager({
          label: 'Pages of leads',
          newest: leads.prev_cursor ? `${leadsPath}${query ? `?${query}` : ''}` : undefined,
          newer: leads.prev_cursor
            ? { href: `${leadsPath}?${leadQueryString(filters, leads.prev_cursor)}`, id: 'leads-newer', text: 'Newer leads' }
            : undefined,
          older: leads.next_cursor
            ? { href: `${leadsPath}?${leadQueryString(filters, leads.next_cursor)}`, id: 'leads-older', text: 'Older leads' }
            : undefined,
        })}
      </div>`,
  });
}

export function recentQualifiedPage(signedIn: SignedIn, view: { leads: Page<Lead>; first: boolean }) {
  const format = formatFor(signedIn);
  const { leads } = view;
  return page({
    title: 'Recent qualified leads',
    signedIn,
    path: leadsPath,
    body: html`${pageHeader({
      title: 'Recent qualified leads',
      lead: `Leads created in the last ${recentQualifiedHours / 24} days that have been qualified, newest first: what an AI agent is told when it asks for recent leads.`,
    })}
      ${views('recent-qualified')}
      ${
        leads.data.length === 0
          ? emptyState({
              id: 'leads-empty',
              title: 'No qualified leads in the last week.',
              next: html`A lead is qualified by a call's outcome or by hand on its page. <a href="${leadsPath}">See every lead</a>.`,
            })
          : leadsTable(format, leads.data, false, 'Recent qualified leads')
      }
      ${pager({
        label: 'Pages of recent qualified leads',
        newest: view.first ? undefined : recentQualifiedPath,
        older: leads.next_cursor
          ? { href: `${recentQualifiedPath}?${new URLSearchParams({ cursor: leads.next_cursor })}`, id: 'leads-older', text: 'Older leads' }
          : undefined,
      })}`,
  });
}

const section = (id: string, title: string, content: Renderable, more?: Html) =>
  html`<section aria-labelledby="${id}-heading" class="lead-section">
    <h2 id="${id}-heading">${title}</h2>
    ${content}
    ${more ? html`<p>${more}</p>` : ''}
  </section>`;

/** The lead's calls in figures: how many each way, how many completed, talk time and the outcomes that happened. */
function callFigures(format: Formatter, stats: CallStats | undefined): Html | string {
  if (!stats || stats.total === 0) return '';
  const outcomes = Object.entries(stats.by_outcome).filter(([outcome, count]) => outcome !== 'none' && count > 0);
  return html`<p id="lead-call-stats">${format.number(stats.total)} ${stats.total === 1 ? 'call' : 'calls'} since the lead was added
    (${format.number(stats.by_direction.inbound)} inbound, ${format.number(stats.by_direction.outbound)} outbound),
    ${format.number(stats.by_status.completed)} completed, talk time ${callDuration(stats.total_duration_seconds)}${
      outcomes.length > 0 ? `; ${outcomes.map(([outcome, count]) => `${words(outcome)}: ${format.number(count)}`).join(', ')}` : ''
    }.</p>`;
}

function callsTable(format: Formatter, calls: CallListItem[] | null): Html {
  if (calls === null) return html`<p class="muted">The calls service did not answer; reload to try again.</p>`;
  if (calls.length === 0) return html`<p class="muted" id="lead-no-calls">No calls with this lead yet.</p>`;
  return dataTable({
    id: 'lead-calls-table',
    caption: 'Latest calls',
    captionHidden: true,
    head: html`<th scope="col">Time</th><th scope="col">Direction</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Duration</th>`,
    rows: calls.map(
      (call) => html`<tr>
        <td class="nowrap"><a href="${callHref(call.id)}">${time(format, call.created_at)}</a></td>
        <td>${call.direction}</td>
        <td>${badge(call.status)}</td>
        <td>${call.outcome ? words(call.outcome) : '—'}</td>
        <td class="num">${callDuration(call.duration_seconds)}</td>
      </tr>`,
    ),
  });
}

function messagesTable(format: Formatter, messages: Page<Sms> | undefined): Html {
  if (!messages) return html`<p class="muted">The messages service did not answer; reload to try again.</p>`;
  if (messages.data.length === 0) return html`<p class="muted" id="lead-no-messages">No messages with this lead yet.</p>`;
  return dataTable({
    id: 'lead-messages-table',
    caption: 'Latest messages',
    captionHidden: true,
    head: html`<th scope="col">Time</th><th scope="col">Direction</th><th scope="col">Status</th><th scope="col">Message</th>`,
    rows: messages.data.map(
      (sms) => html`<tr>
        <td class="nowrap">${time(format, sms.created_at)}</td>
        <td>${sms.direction}</td>
        <td>${badge(sms.status, smsStatusLabels[sms.status])}</td>
        <td>${sms.body.length > 80 ? `${sms.body.slice(0, 79)}…` : sms.body}</td>
      </tr>`,
    ),
  });
}

function enrollmentsTable(format: Formatter, enrollments: Enrollment[], sequences: Map<string, string>): Html {
  if (enrollments.length === 0) return html`<p class="muted" id="lead-no-enrollments">Not enrolled in any sequence.</p>`;
  return dataTable({
    id: 'lead-enrollments-table',
    caption: 'Sequence enrollments',
    captionHidden: true,
    head: html`<th scope="col">Sequence</th><th scope="col">Status</th><th scope="col">Step</th><th scope="col">Next step</th><th scope="col">Started</th>`,
    rows: enrollments.map(
      (enrollment) => html`<tr>
        <td><a href="${sequencePath(enrollment.sequence_id)}">${sequences.get(enrollment.sequence_id) ?? enrollment.sequence_id}</a></td>
        <td>${badge(enrollment.status)}</td>
        <td class="num">${Math.min(enrollment.current_step + 1, enrollment.steps.length)} of ${enrollment.steps.length}</td>
        <td class="nowrap">${time(format, enrollment.next_step_at)}</td>
        <td class="nowrap">${time(format, enrollment.started_at)}</td>
      </tr>`,
    ),
  });
}

function invoicesTable(format: Formatter, invoices: Page<Invoice> | undefined): Html {
  if (!invoices) return html`<p class="muted">The billing service did not answer; reload to try again.</p>`;
  if (invoices.data.length === 0) return html`<p class="muted" id="lead-no-invoices">No invoices.</p>`;
  return dataTable({
    id: 'lead-invoices-table',
    caption: 'Invoices',
    captionHidden: true,
    head: html`<th scope="col">Invoice</th><th scope="col">Status</th><th scope="col">Total</th><th scope="col">Due</th>`,
    rows: invoices.data.map(
      (invoice) => html`<tr>
        <td><a href="${invoicePath(invoice.id)}"><code>${invoice.id}</code></a></td>
        <td>${badge(invoice.status)}</td>
        <td class="num">${moneyOf(format, { amount: invoice.total, currency: invoice.currency })}</td>
        <td class="nowrap">${invoice.due_date ?? '—'}</td>
      </tr>`,
    ),
  });
}

function projectsTable(projects: Page<Project> | undefined): Html {
  if (!projects) return html`<p class="muted">The billing service did not answer; reload to try again.</p>`;
  if (projects.data.length === 0) return html`<p class="muted" id="lead-no-projects">No projects.</p>`;
  return dataTable({
    id: 'lead-projects-table',
    caption: 'Projects',
    captionHidden: true,
    head: html`<th scope="col">Project</th><th scope="col">Status</th><th scope="col">Due</th>`,
    rows: projects.data.map(
      (project) => html`<tr>
        <td><a href="${projectPath(project.id)}">${project.name}</a></td>
        <td>${badge(project.status)}</td>
        <td class="nowrap">${project.due_date ?? '—'}</td>
      </tr>`,
    ),
  });
}

export interface LeadView {
  lead: LeadDetail;
  /** The lead's calls counted since it was added (undefined when the calls service did not answer). */
  callStats: CallStats | undefined;
  messages: Page<Sms> | undefined;
  invoices: Page<Invoice> | undefined;
  projects: Page<Project> | undefined;
  events: { data: RecordEvent[]; has_more: boolean } | undefined;
  /** The organization's sequences: names for the enrollments, choices for "Enroll in a sequence". */
  sequences: Sequence[];
  noteFormKey: string;
  noteError?: string | undefined;
  enrollError?: string | undefined;
}

function noteForm(signedIn: SignedIn, view: LeadView): Html {
  return html`<form method="post" action="${leadNotesPath(view.lead.id)}" class="stack" id="lead-note-form">
    ${csrfField(signedIn.csrfToken)}
    <input type="hidden" name="form_key" value="${view.noteFormKey}">
    ${field({
      id: 'lead-note-body',
      name: 'body',
      label: 'Add a note',
      error: view.noteError,
      control: (describedBy, invalid) =>
        html`<textarea id="lead-note-body" name="body" rows="3" maxlength="10000" required${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}></textarea>`,
    })}
    <button type="submit" id="lead-note-add">Add the note</button>
  </form>`;
}

function enrollForm(signedIn: SignedIn, view: LeadView): Html {
  if (view.sequences.length === 0) {
    return html`<p class="muted">No sequences yet: <a href="/dashboard/sequences">create one</a> to enroll this lead.</p>`;
  }
  return html`<form method="post" action="${enrollLeadPath(view.lead.id)}" class="filter-bar" id="lead-enroll-form">
    ${csrfField(signedIn.csrfToken)}
    ${field({
      id: 'lead-enroll-sequence',
      name: 'sequence_id',
      label: 'Enroll in a sequence',
      error: view.enrollError,
      control: (
        describedBy,
        invalid,
      ) => html`<select id="lead-enroll-sequence" name="sequence_id" required${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>
        ${option('', 'Choose a sequence', '')}${view.sequences.map((sequence) => option(sequence.id, sequence.name, undefined))}
      </select>`,
    })}
    <button type="submit" id="lead-enroll">Enroll</button>
  </form>`;
}

export function leadPage(signedIn: SignedIn, view: LeadView) {
  const { lead } = view;
  const format = formatFor(signedIn);
  const manager = canManage(signedIn.role);
  const name = leadName(format, lead);
  const custom = Object.entries(lead.custom_fields);
  const sequenceNames = new Map(view.sequences.map((sequence) => [sequence.id, sequence.name]));
  return page({
    title: name,
    signedIn,
    path: leadsPath,
    body: html`<p><a href="${leadsPath}">← Leads</a></p>
      ${pageHeader({
        title: name,
        lead: html`${badge(lead.status, undefined, 'lead-status')} <code>${lead.id}</code>`,
        actions: manager
          ? html`<a id="lead-edit" class="button" href="${editLeadPath(lead.id)}">Edit</a> <a id="lead-delete" class="button" href="${deleteLeadPath(lead.id)}">Delete</a>`
          : '',
      })}
      <dl id="lead-facts">
        <dt>Name</dt><dd>${lead.name ?? '—'}</dd>
        <dt>Phone</dt><dd>${lead.phone ? format.phone(lead.phone) : '—'}</dd>
        <dt>E-mail</dt><dd>${lead.email ? html`<a href="mailto:${lead.email}">${lead.email}</a>` : '—'}</dd>
        <dt>Company</dt><dd>${lead.company ?? '—'}</dd>
        <dt>Qualified</dt><dd>${time(format, lead.qualified_at, 'Not yet')}</dd>
        <dt>Source</dt><dd>${words(lead.source)}</dd>
        <dt>Workspace</dt><dd>${lead.workspace_id ? html`<code>${lead.workspace_id}</code>` : '—'}</dd>
        <dt>Owner</dt><dd>${lead.owner ?? '—'}</dd>
        <dt>Tags</dt><dd>${lead.tags.length > 0 ? lead.tags.join(', ') : '—'}</dd>
        <dt>Next action</dt><dd>${lead.next_action ?? '—'}${lead.next_action_at ? html` (${time(format, lead.next_action_at)})` : ''}</dd>
        <dt>Last contacted</dt><dd>${time(format, lead.last_contacted_at)}</dd>
        <dt>Created</dt><dd>${time(format, lead.created_at)}</dd>
        ${custom.map(([key, value]) => html`<dt>${key}</dt><dd><code>${JSON.stringify(value)}</code></dd>`)}
      </dl>
      ${section(
        'lead-notes',
        'Notes',
        html`${manager ? noteForm(signedIn, view) : ''}
        ${
          lead.notes.length === 0
            ? html`<p class="muted" id="lead-no-notes">No notes yet.</p>`
            : html`<ol class="timeline lead-notes" id="lead-notes">
              ${lead.notes.map(
                (note) =>
                  html`<li><p class="muted">${note.author ?? 'Someone'} · ${time(format, note.created_at)}</p><p class="lead-note">${note.body}</p></li>`,
              )}
            </ol>`
        }`,
      )}
      ${section(
        'lead-calls',
        'Calls',
        html`${callFigures(format, view.callStats)}${callsTable(format, lead.recent_calls)}`,
        html`<a id="lead-all-calls" href="${callsListHref({ lead_id: lead.id })}">All calls with this lead</a>`,
      )}
      ${section(
        'lead-messages',
        'Messages',
        messagesTable(format, view.messages),
        html`<a id="lead-all-messages" href="${messagesListHref({ lead_id: lead.id })}">All messages with this lead</a>`,
      )}
      ${section(
        'lead-sequences',
        'Sequences',
        html`${manager ? enrollForm(signedIn, view) : ''}${enrollmentsTable(format, lead.enrollments, sequenceNames)}`,
      )}
      ${section(
        'lead-invoices',
        'Invoices',
        invoicesTable(format, view.invoices),
        manager ? html`<a id="lead-draft-invoice" href="${newInvoiceHref(lead.id)}">Draft an invoice for this lead</a>` : undefined,
      )}
      ${section('lead-projects', 'Projects', projectsTable(view.projects))}
      ${section('lead-events', 'Events and webhook deliveries', recordEventsSection(format, view.events, 'lead'))}`,
  });
}

const statusLabel = (status: string) => words(status).replace(/^./, (first) => first.toUpperCase());

export interface LeadFormView {
  /** The lead being edited; absent when adding one. */
  leadId?: string;
  values: LeadForm & { note?: string };
  formKey?: string;
  errors: FieldErrors;
  error?: string | undefined;
}

/** The add and edit form: the same fields; adding has a first note and a form key (one lead per submit). */
export function leadFormPage(signedIn: SignedIn, view: LeadFormView) {
  const { values, errors, leadId } = view;
  const title = leadId ? 'Edit the lead' : 'Add a lead';
  const back = leadId ? leadHref(leadId) : leadsPath;
  const text = (name: keyof LeadForm, label: string, hint: string, attributes: Html, type = 'text') =>
    field({
      id: `lead-${name.replaceAll('_', '-')}`,
      name,
      label,
      type,
      value: values[name],
      hint,
      error: errors[name],
      attributes,
    });
  const select = (name: 'status' | 'source', label: string, choices: readonly string[]) =>
    field({
      id: `lead-${name}`,
      name,
      label,
      error: errors[name],
      control: (
        describedBy,
        invalid,
      ) => html`<select id="lead-${name}" name="${name}"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>
        ${choices.map((choice) => option(choice, statusLabel(choice), values[name]))}
      </select>`,
    });
  return page({
    title,
    signedIn,
    path: leadsPath,
    body: html`<p><a href="${back}">← ${leadId ? 'The lead' : 'Leads'}</a></p>
      ${pageHeader({ title, lead: 'Every field may stay empty but one way to reach the person is what makes a lead useful.' })}
      ${notice('error', view.error)}
      <form method="post" action="${leadId ? editLeadPath(leadId) : leadsPath}" class="stack panel" id="lead-form">
        ${csrfField(signedIn.csrfToken)}
        ${view.formKey ? html`<input type="hidden" name="form_key" value="${view.formKey}">` : ''}
        ${text('name', 'Name', 'As the person gives it.', html`maxlength="200" autocomplete="off"`)}
        ${text('phone', 'Phone', 'In international form, with the country code: +14155550123.', html`maxlength="32" autocomplete="off"`, 'tel')}
        ${text('email', 'E-mail', 'e.g. ada@example.com.', html`maxlength="320" autocomplete="off"`, 'email')}
        ${text('company', 'Company', 'Where the person works, if it matters.', html`maxlength="200" autocomplete="off"`)}
        ${select('status', 'Status', leadStatuses)}
        ${select('source', 'Source', leadSources)}
        ${text('workspace_id', 'Workspace id', 'The workspace the lead belongs to, e.g. ws_2x8Fq0aZ9kLm4Rt7; empty for none.', html`maxlength="64"`)}
        ${text('owner', 'Owner', 'Who on your team follows the lead up: a name or an e-mail.', html`maxlength="200"`)}
        ${text('tags', 'Tags', 'Separated by commas, e.g. roofing, spring-promo.', html`maxlength="1000"`)}
        ${text('next_action', 'Next action', 'What should happen next, e.g. send a quote.', html`maxlength="500"`)}
        ${
          leadId
            ? ''
            : field({
                id: 'lead-note',
                name: 'note',
                label: 'First note (optional)',
                error: errors.note,
                control: (describedBy, invalid) =>
                  html`<textarea id="lead-note" name="note" rows="3" maxlength="10000"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${values.note ?? ''}</textarea>`,
              })
        }
        <div class="actions"><button type="submit" id="lead-save" class="primary">${leadId ? 'Save the lead' : 'Add the lead'}</button> <a href="${back}" class="button">Back</a></div>
      </form>`,
  });
}

export function deleteLeadConfirmPage(signedIn: SignedIn, lead: Lead) {
  const format = formatFor(signedIn);
  return confirmPage(signedIn, {
    title: 'Delete the lead',
    heading: `Delete ${leadName(format, lead)}?`,
    path: leadsPath,
    question:
      'The lead, its notes and its sequence enrollments are deleted, with its personal data; its invoices and projects stay, without a customer. This cannot be undone.',
    action: deleteLeadPath(lead.id),
    buttonId: 'lead-delete-confirm',
    buttonLabel: 'Delete the lead',
    cancelHref: leadHref(lead.id),
    cancelLabel: 'Keep the lead',
  });
}
