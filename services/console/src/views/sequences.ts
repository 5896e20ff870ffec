import { type Enrollment, enrollmentStatuses, type Page, type Sequence, type SequenceStep } from '@voice/proto';
import { canManage } from '../domain/roles.js';
import { type EnrollmentFilters, sequencePath, unenrollPath } from '../domain/sequences.js';
import type { SignedIn } from '../domain/sessions.js';
import { workspacePath } from '../domain/workspaces.js';
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
import { type Html, html } from './html.js';
import { page } from './layout.js';
import { leadHref } from './list-links.js';

export const sequencesPath = '/dashboard/sequences';

const units: Array<[number, string]> = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** A step's delay in words, largest units first: 93,600 s → "1 day 2 hours". */
export function delayWords(seconds: number): string {
  if (seconds === 0) return 'at once';
  const parts: string[] = [];
  let rest = seconds;
  for (const [size, unit] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
    rest %= size;
  }
  return parts.slice(0, 2).join(' ');
}

/** What a step does, in words. */
function stepWords(step: SequenceStep): Html {
  const after = step.delay_seconds === 0 ? 'right away' : `after ${delayWords(step.delay_seconds)}`;
  switch (step.type) {
    case 'call':
      return html`<strong>Call</strong> the lead, ${after}`;
    case 'sms':
      return html`<strong>Text</strong> the lead, ${after}: <q class="step-body">${step.body}</q>`;
    default:
      return html`<strong>Wait</strong> ${delayWords(step.delay_seconds)}`;
  }
}

function stepsList(steps: SequenceStep[], id: string): Html {
  return html`<ol class="steps" id="${id}">${steps.map((step) => html`<li>${stepWords(step)}</li>`)}</ol>`;
}

const stepsSummary = (steps: SequenceStep[]) =>
  steps.map((step) => (step.type === 'sms' ? 'SMS' : step.type === 'call' ? 'call' : 'wait')).join(' → ');

const workspaceRef = (workspaceId: string | null) =>
  workspaceId
    ? html`<a href="${workspacePath(workspaceId)}"><code>${workspaceId}</code></a>`
    : html`<span class="muted">all workspaces</span>`;

/** The organization's follow-up sequences, newest first. */
export function sequencesListPage(signedIn: SignedIn, view: { sequences: Page<Sequence>; cursor?: string | undefined }) {
  const format = formatFor(signedIn);
  const { sequences } = view;
  return page({
    title: 'Sequences',
    signedIn,
    path: sequencesPath,
    body: html`${pageHeader({
      title: 'Sequences',
      lead: 'Follow-ups the platform runs for each enrolled lead: calls, text messages and waits, in order. Enroll a lead from a sequence’s page.',
    })}
      ${
        sequences.data.length === 0
          ? emptyState({
              id: 'sequences-empty',
              title: view.cursor ? 'No more sequences.' : 'No sequences yet.',
              next: view.cursor
                ? html`<a href="${sequencesPath}">Back to the newest</a>.`
                : 'Sequences are made through the API or by an AI agent (MCP); each then gets a page here with its steps and enrollments.',
            })
          : dataTable({
              id: 'sequences',
              caption: 'Sequences, newest first',
              captionHidden: true,
              head: html`<th scope="col">Name</th><th scope="col">Steps</th><th scope="col">Workspace</th><th scope="col">Created</th>`,
              rows: sequences.data.map(
                (sequence) => html`<tr id="row-${sequence.id}">
                  <th scope="row"><a href="${sequencePath(sequence.id)}">${sequence.name}</a>${
                    sequence.description ? html`<br><span class="muted">${sequence.description}</span>` : ''
                  }</th>
                  <td>${sequence.steps.length} · ${stepsSummary(sequence.steps)}</td>
                  <td>${workspaceRef(sequence.workspace_id)}</td>
                  <td class="nowrap">${time(format, sequence.created_at)}</td>
                </tr>`,
              ),
            })
      }
      ${pager({
        label: 'Pages of the sequences',
        newest: view.cursor ? sequencesPath : undefined,
        older: sequences.next_cursor
          ? {
              href: `${sequencesPath}?${new URLSearchParams({ cursor: sequences.next_cursor })}`,
              id: 'sequences-older',
              text: 'Older sequences',
            }
          : undefined,
      })}`,
  });
}

/** Where an enrollment stands, in words: the next step and when, or how it ended. */
function progress(format: Formatter, enrollment: Enrollment): Html | string {
  const total = enrollment.steps.length;
  if (enrollment.status === 'completed') return html`All ${total} steps run, ${time(format, enrollment.completed_at)}`;
  if (enrollment.status === 'stopped')
    return html`Stopped at step ${Math.min(enrollment.current_step + 1, total)} of ${total}, ${time(format, enrollment.stopped_at)}${
      enrollment.stopped_reason ? html` (${enrollment.stopped_reason.replaceAll('_', ' ')})` : ''
    }`;
  return html`Step ${Math.min(enrollment.current_step + 1, total)} of ${total}${
    enrollment.next_step_at ? html`, next ${time(format, enrollment.next_step_at)}` : ''
  }`;
}

const enrollmentsHref = (sequenceId: string, filters: EnrollmentFilters, cursor?: string) => {
  const query = new URLSearchParams({ ...(filters.status ? { status: filters.status } : {}), ...(cursor ? { cursor } : {}) }).toString();
  return `${sequencePath(sequenceId)}${query ? `?${query}` : ''}#enrollments-heading`;
};

/** The "Enroll a lead" form (owners and admins): one key per rendered form. */
export interface EnrollForm {
  formKey: string;
  leadId?: string | undefined;
  errors?: FieldErrors;
  error?: string | undefined;
}

function enrollForm(signedIn: SignedIn, sequenceId: string, form: EnrollForm): Html {
  return html`<section aria-labelledby="enroll-heading" class="panel">
    <h2 id="enroll-heading">Enroll a lead</h2>
    ${notice('error', form.error)}
    <form method="post" action="${sequencePath(sequenceId)}/enrollments" class="stack">
      ${csrfField(signedIn.csrfToken)}
      <input type="hidden" name="form_key" value="${form.formKey}">
      ${field({
        id: 'enroll-lead',
        name: 'lead_id',
        label: 'Lead id',
        value: form.leadId ?? '',
        hint: 'From the lead’s page, e.g. lead_2x8Jk…. A lead already active in this sequence keeps its enrollment; steps to numbers on the do-not-call list are skipped.',
        error: form.errors?.lead_id,
        attributes: html`required maxlength="64" autocomplete="off" spellcheck="false"`,
      })}
      <button type="submit" id="enroll-submit">Enroll</button>
    </form>
  </section>`;
}

export interface SequenceView {
  sequence: Sequence;
  filters: EnrollmentFilters;
  enrollments: Page<Enrollment>;
  form?: EnrollForm | undefined;
}

/** A sequence: its steps, its enrollments (filtered by status, paged), and enrolling and unenrolling leads. */
export function sequencePage(signedIn: SignedIn, view: SequenceView) {
  const format = formatFor(signedIn);
  const { sequence, filters, enrollments } = view;
  const manage = canManage(signedIn.role);
  const statusOption = (value: string, label: string) =>
    html`<option value="${value}" ${value === (filters.status ?? '') ? html`selected` : ''}>${label}</option>`;
  return page({
    title: `Sequence ${sequence.name}`,
    signedIn,
    path: sequencesPath,
    live: true,
    body: html`<p><a href="${sequencesPath}">← Sequences</a></p>
      ${pageHeader({ title: sequence.name, lead: html`${sequence.description ?? ''} <code>${sequence.id}</code>` })}
      <dl id="sequence-facts">
        <dt>Workspace</dt><dd>${workspaceRef(sequence.workspace_id)}</dd>
        <dt>Created</dt><dd>${time(format, sequence.created_at)}</dd>
        <dt>Changed</dt><dd>${time(format, sequence.updated_at)}</dd>
      </dl>
      <section aria-labelledby="steps-heading">
        <h2 id="steps-heading">Steps</h2>
        <p class="muted">Each enrolled lead goes through these in order; a lead keeps the steps it was enrolled with when the sequence changes later.</p>
        ${stepsList(sequence.steps, 'sequence-steps')}
      </section>
      ${manage && view.form ? enrollForm(signedIn, sequence.id, view.form) : ''}
      <section aria-labelledby="enrollments-heading">
        <h2 id="enrollments-heading">Enrollments</h2>
        <form method="get" action="${sequencePath(sequence.id)}" class="filters" aria-label="Filter the enrollments">
          <div class="filter-field"><label for="enrollments-status">Status</label>
          <select id="enrollments-status" name="status">
            ${statusOption('', 'Any status')}${enrollmentStatuses.map((status) => statusOption(status, status))}
          </select></div>
          <button type="submit" class="primary">Filter</button>
        </form>
        <div id="enrollments-live" data-live="enrollment" data-live-label="Enrollments updated.">
        ${
          enrollments.data.length === 0
            ? emptyState({
                id: 'enrollments-empty',
                title: filters.status ? `No ${filters.status} enrollments.` : 'No lead is enrolled yet.',
                next: filters.status
                  ? html`<a href="${sequencePath(sequence.id)}">Show every enrollment</a>.`
                  : manage
                    ? 'Enroll a lead above, from a lead’s page, or several from the leads list.'
                    : 'Owners and admins enroll leads here, from a lead’s page or from the leads list.',
              })
            : dataTable({
                id: 'enrollments',
                caption: `Enrollments in ${sequence.name}, newest first`,
                captionHidden: true,
                head: html`<th scope="col">Lead</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Enrolled</th>${
                  manage ? html`<th scope="col">Actions</th>` : ''
                }`,
                rows: enrollments.data.map(
                  (enrollment) => html`<tr id="row-${enrollment.id}">
                    <th scope="row"><a href="${leadHref(enrollment.lead_id)}"><code>${enrollment.lead_id}</code></a></th>
                    <td>${badge(enrollment.status)}</td>
                    <td>${progress(format, enrollment)}</td>
                    <td class="nowrap">${time(format, enrollment.started_at)}</td>
                    ${
                      manage
                        ? html`<td>${
                            enrollment.status === 'active'
                              ? html`<a class="button" id="unenroll-${enrollment.id}" href="${unenrollPath(sequence.id, enrollment.lead_id)}">Unenroll…<span class="visually-hidden"> ${enrollment.lead_id}</span></a>`
                              : ''
                          }</td>`
                        : ''
                    }
                  </tr>`,
                ),
              })
        }
        ${pager({
          label: 'Pages of the enrollments',
          newest: filters.cursor ? enrollmentsHref(sequence.id, filters) : undefined,
          older: enrollments.next_cursor
            ? { href: enrollmentsHref(sequence.id, filters, enrollments.next_cursor), id: 'enrollments-older', text: 'Older enrollments' }
            : undefined,
        })}
        </div>
      </section>`,
  });
}

/** The confirmation before a lead's enrollment stops (owners and admins); its button posts. */
export function unenrollConfirmPage(signedIn: SignedIn, sequence: Sequence, enrollment: Enrollment) {
  const format = formatFor(signedIn);
  const remaining = enrollment.steps.length - enrollment.current_step;
  return confirmPage(signedIn, {
    title: `Unenroll ${enrollment.lead_id} from ${sequence.name}`,
    heading: `Stop ${sequence.name} for this lead?`,
    path: sequencesPath,
    question: html`<a href="${leadHref(enrollment.lead_id)}"><code>${enrollment.lead_id}</code></a> is at ${progress(format, enrollment)}.
      Unenrolling stops it: the ${remaining === 1 ? 'last step does' : `${remaining} remaining steps do`} not run, and the enrollment is kept as stopped. Enrolling the lead again later starts the sequence from its first step.`,
    action: unenrollPath(sequence.id, enrollment.lead_id),
    buttonId: 'unenroll-confirm',
    buttonLabel: 'Unenroll the lead',
    cancelHref: sequencePath(sequence.id),
    cancelLabel: 'Keep the enrollment',
  });
}
