import { type Lead, type Page, type Project, projectStatuses, type RecordEvent, type WebhookEndpoint } from '@voice/proto';
import {
  deliverableStatuses,
  formRows,
  invoicesPath,
  type ProjectFilters,
  type ProjectFormValues,
  projectsPath,
} from '../domain/billing.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { billingFilterForm, billingPager, customerFacts, eventReceivers, leadRef } from './billing.js';
import { badge, dataTable, emptyState, type FieldErrors, field, formatFor, pageHeader, time } from './components.js';
import { confirmPage } from './confirm.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';
import { recordEventsSection } from './record-events.js';

export const projectPath = (id: string) => `${projectsPath}/${id}`;
/** Projects belong to the sidebar's one Billing entry, which opens the invoices. */
const billingNavPath = invoicesPath;

const progress = (project: Project) =>
  `${project.deliverables.filter((deliverable) => deliverable.done).length} of ${project.deliverables.length}`;

export interface ProjectsListView {
  filters: ProjectFilters;
  projects: Page<Project>;
}

export function projectsListPage(signedIn: SignedIn, view: ProjectsListView) {
  const { filters, projects } = view;
  const format = formatFor(signedIn);
  const filtered = Boolean(filters.status || filters.lead_id);
  return page({
    title: 'Projects',
    signedIn,
    path: billingNavPath,
    body: html`${pageHeader({
      title: 'Projects',
      lead: 'The work the organization delivers to its customers: active, ready, then delivered.',
      actions: html`<a class="button" href="/dashboard/invoices">Invoices</a>`,
    })}
      ${billingFilterForm({ path: projectsPath, what: 'projects', idPrefix: 'projects', statuses: projectStatuses, filters })}
      ${
        projects.data.length === 0
          ? emptyState({
              id: 'projects-empty',
              title: filtered ? 'No projects match these filters.' : 'No projects yet.',
              next: filtered
                ? html`Choose another status, or <a href="${projectsPath}">clear the filters</a>.`
                : 'Projects are created through the API or by an AI agent; they show here to follow and deliver.',
            })
          : dataTable({
              id: 'projects-table',
              caption: 'Projects',
              captionHidden: true,
              head: html`<th scope="col">Project</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col">Deliverables done</th><th scope="col">Due</th><th scope="col">Updated (${format.audience.timeZone})</th>`,
              rows: projects.data.map(
                (project) => html`<tr id="project-${project.id}">
                  <th scope="row"><a href="${projectPath(project.id)}">${project.name}</a></th>
                  <td>${leadRef(project.lead_id)}</td>
                  <td>${badge(project.status)}</td>
                  <td class="num">${progress(project)}</td>
                  <td class="nowrap">${project.due_date ? format.day(project.due_date) : '—'}</td>
                  <td class="nowrap">${time(format, project.updated_at)}</td>
                </tr>`,
              ),
            })
      }
      ${billingPager(projectsPath, filters, projects, { label: 'Pages of projects', olderId: 'projects-older', olderText: 'Older projects' })}`,
  });
}

function deliverablesList(project: Project): Html {
  if (project.deliverables.length === 0) return html`<p class="muted" id="project-no-deliverables">No deliverables listed.</p>`;
  return html`<ul class="deliverables" id="project-deliverables">
    ${project.deliverables.map(
      (deliverable) => html`<li>
        ${badge(deliverable.done ? 'done' : 'to_do', deliverable.done ? 'done' : 'to do')}
        ${deliverable.url ? html`<a href="${deliverable.url}" rel="noopener noreferrer">${deliverable.name}</a>` : deliverable.name}
      </li>`,
    )}
  </ul>`;
}

export interface ProjectView {
  project: Project;
  lead: Lead | undefined;
  events: { data: RecordEvent[]; has_more: boolean } | undefined;
}

export function projectPage(signedIn: SignedIn, view: ProjectView) {
  const { project, lead } = view;
  const format = formatFor(signedIn);
  const open = canManage(signedIn.role) && deliverableStatuses.includes(project.status);
  return page({
    title: project.name,
    signedIn,
    path: billingNavPath,
    body: html`<p><a href="${projectsPath}">← Projects</a></p>
      ${pageHeader({
        title: project.name,
        lead: html`${badge(project.status, undefined, 'project-status')} <code>${project.id}</code>`,
        actions: open
          ? html`<a id="project-edit" class="button" href="${projectPath(project.id)}/edit">Edit</a>
            <a id="project-deliver" class="button" href="${projectPath(project.id)}/deliver">Deliver…</a>`
          : '',
      })}
      <dl id="project-facts">
        <dt>Customer</dt><dd>${leadRef(project.lead_id, lead)}</dd>
        <dt>Due</dt><dd>${project.due_date ? format.day(project.due_date) : '—'}</dd>
        <dt>Deliverables done</dt><dd>${progress(project)}</dd>
        <dt>Created</dt><dd>${time(format, project.created_at)}</dd>
        <dt>Delivered</dt><dd>${time(format, project.delivered_at)}</dd>
      </dl>
      <section aria-labelledby="project-deliverables-heading">
        <h2 id="project-deliverables-heading">Deliverables</h2>
        ${deliverablesList(project)}
      </section>
      <section aria-labelledby="project-notes-heading">
        <h2 id="project-notes-heading">Notes</h2>
        <p class="prewrap" id="project-notes">${project.notes ?? html`<span class="muted">None.</span>`}</p>
      </section>
      <section aria-labelledby="project-events-heading">
        <h2 id="project-events-heading">Events and webhook deliveries</h2>
        ${recordEventsSection(format, view.events, 'project')}
      </section>`,
  });
}

/** A project's form values from the project itself, with a blank row or more to add deliverables. */
export function projectFormValues(project: Project): ProjectFormValues {
  const deliverables = project.deliverables.map((deliverable) => ({
    name: deliverable.name,
    url: deliverable.url ?? '',
    done: deliverable.done,
  }));
  const rows = Math.min(formRows.projectMost, Math.max(formRows.initial, deliverables.length + 1));
  return {
    name: project.name,
    status: project.status,
    due_date: project.due_date ?? '',
    notes: project.notes ?? '',
    deliverables: [...deliverables, ...Array.from({ length: rows - deliverables.length }, () => ({ name: '', url: '', done: false }))],
  };
}

export interface ProjectFormView {
  project: Project;
  values: ProjectFormValues;
  errors: FieldErrors;
  error?: string | undefined;
}

export function projectFormPage(signedIn: SignedIn, view: ProjectFormView) {
  const { project, values, errors } = view;
  const statusOption = (status: string) =>
    html`<option value="${status}" ${status === values.status ? html`selected` : ''}>${status}</option>`;
  return page({
    title: `Edit ${project.name}`,
    signedIn,
    path: billingNavPath,
    body: html`<p><a href="${projectPath(project.id)}">← The project</a></p>
      ${pageHeader({ title: html`Edit <q>${project.name}</q>`, lead: 'Delivery is its own step, after the confirmation on the project’s page.' })}
      ${notice('error', view.error)}
      <form method="post" action="${projectPath(project.id)}" class="panel project-form" id="project-form">
        ${csrfField(signedIn.csrfToken)}
        <input type="hidden" name="rows" value="${values.deliverables.length}">
        ${field({ id: 'project-name', name: 'name', label: 'Name', value: values.name, error: errors.name, attributes: html`required maxlength="200"` })}
        ${field({
          id: 'project-status-field',
          name: 'status',
          label: 'Status',
          hint: 'Ready means the work is done and waits to be delivered.',
          error: errors.status,
          control: (describedBy, invalid) =>
            html`<select id="project-status-field" name="status"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${deliverableStatuses.map(statusOption)}</select>`,
        })}
        ${field({ id: 'project-due', name: 'due_date', label: 'Due date (optional)', type: 'date', value: values.due_date, error: errors.due_date })}
        ${field({
          id: 'project-notes-field',
          name: 'notes',
          label: 'Notes (optional)',
          error: errors.notes,
          control: (describedBy, invalid) =>
            html`<textarea id="project-notes-field" name="notes" rows="4" maxlength="10000"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${values.notes}</textarea>`,
        })}
        <h2>Deliverables</h2>
        <p class="hint">Leave a row empty to remove it. A link must start with https:// or http://.</p>
        ${notice('error', errors.deliverables)}
        ${values.deliverables.map((deliverable, row) => {
          const name = (part: string) => `deliverables.${row}.${part}`;
          return html`<fieldset class="line-row" id="deliverable-${row}">
            <legend>Deliverable ${row + 1}</legend>
            ${field({ id: `deliverable-${row}-name`, name: name('name'), label: 'Name', value: deliverable.name, error: errors[name('name')], attributes: html`maxlength="200"` })}
            ${field({ id: `deliverable-${row}-url`, name: name('url'), label: 'Link (optional)', type: 'url', value: deliverable.url, error: errors[name('url')], attributes: html`maxlength="2048"` })}
            <div class="field checkbox-field"><label><input type="checkbox" name="${name('done')}" id="deliverable-${row}-done" ${deliverable.done ? html`checked` : ''}> Done</label></div>
          </fieldset>`;
        })}
        <div class="actions">
          <button type="submit" id="project-save" class="primary">Save the project</button>
          ${values.deliverables.length < formRows.projectMost ? html`<button type="submit" name="more" value="1" id="project-more-rows" formnovalidate>Add more rows</button>` : ''}
          <a href="${projectPath(project.id)}" class="button">Cancel</a>
        </div>
      </form>`,
  });
}

export interface ProjectDeliverView {
  project: Project;
  lead: Lead | undefined;
  receivers: WebhookEndpoint[] | undefined;
}

export function deliverProjectConfirmPage(signedIn: SignedIn, view: ProjectDeliverView) {
  const { project, lead } = view;
  const format = formatFor(signedIn);
  return confirmPage(signedIn, {
    title: 'Deliver the project',
    heading: `Deliver “${project.name}”?`,
    path: billingNavPath,
    question:
      'Delivering tells the customer through your delivery channels and marks the project delivered. It is final: a delivered project no longer changes.',
    details: html`<section aria-labelledby="confirm-what" class="confirm-details">
      <h2 id="confirm-what">What goes out, and to whom</h2>
      ${customerFacts(format, project.lead_id, lead)}
      <dl><dt>Deliverables done</dt><dd>${progress(project)}</dd></dl>
      ${deliverablesList(project)}
      ${eventReceivers('project.delivered', view.receivers)}
    </section>`,
    action: `${projectPath(project.id)}/deliver`,
    buttonId: 'project-deliver-confirm',
    buttonLabel: 'Deliver the project',
    cancelHref: projectPath(project.id),
    cancelLabel: 'Back to the project',
  });
}
