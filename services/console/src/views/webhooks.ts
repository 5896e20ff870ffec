import {
  allEventTypes,
  subscribableEventTypes,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  webhooksPlanMessage,
} from '@voice/proto';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { badge, dataTable, emptyState, formatFor, pageHeader, pager, time } from './components.js';
import { confirmPage } from './confirm.js';
import type { Formatter } from './format.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';

export const webhooksPath = '/dashboard/webhooks';
const endpointPath = (id: string) => `${webhooksPath}/${id}`;

const disabledBecause: Record<NonNullable<WebhookEndpoint['disabled_reason']>, string> = {
  manual: 'disabled by a person',
  endpoint_gone: 'disabled: the endpoint answered 410 Gone',
  failing: 'disabled: every delivery failed for days',
  plan: 'disabled: the plan does not include webhooks',
};

/** The endpoint's status as a badge (`id` marks the one on its own page). */
function statusOf(endpoint: WebhookEndpoint, format: Formatter, id?: string): Html {
  if (endpoint.status === 'disabled')
    return badge('disabled', endpoint.disabled_reason ? disabledBecause[endpoint.disabled_reason] : 'disabled', id);
  return endpoint.failing_since
    ? badge('retrying', `enabled; failing since ${format.dateTime(endpoint.failing_since)}`, id)
    : badge('enabled', 'enabled', id);
}

const eventTypesOf = (endpoint: WebhookEndpoint) =>
  endpoint.event_types.includes(allEventTypes) ? 'all events' : endpoint.event_types.join(', ');

/** The plan's refusal, instead of the forms, on a plan without webhooks. */
const planNotice = () => html`<p class="notice" role="status" id="webhooks-plan">${webhooksPlanMessage}</p>`;

/**
 * URL, description and event types, for creating and editing. Each event type is a checkbox of its own
 * name (`event_type.<type>`), since the form parser keeps one value per field.
 */
function endpointFields(endpoint?: WebhookEndpoint): Html {
  const chosen = new Set(endpoint?.event_types ?? [allEventTypes]);
  const box = (type: string, label: string) => {
    const id = `webhook-event-${type === allEventTypes ? 'all' : type.replace('.', '-')}`;
    return html`<li><input type="checkbox" id="${id}" name="event_type.${type}" value="on" ${chosen.has(type) ? html`checked` : ''}>
      <label for="${id}">${label}</label></li>`;
  };
  return html`<label for="webhook-url">URL</label>
    <input id="webhook-url" name="url" type="url" required maxlength="2048" value="${endpoint?.url ?? ''}" placeholder="https://example.com/webhooks">
    <label for="webhook-description">Description (optional)</label>
    <input id="webhook-description" name="description" maxlength="500" value="${endpoint?.description ?? ''}">
    <fieldset>
      <legend>Event types</legend>
      <ul class="checkboxes">
        ${box(allEventTypes, 'All events, including types added later')}
        ${subscribableEventTypes.map((type) => box(type, type))}
      </ul>
    </fieldset>`;
}

function createForm(signedIn: SignedIn): Html {
  return html`<section aria-labelledby="create-heading" class="panel">
      <h2 id="create-heading">Add an endpoint</h2>
      <form method="post" action="${webhooksPath}" class="stack">
        ${csrfField(signedIn.csrfToken)}
        ${endpointFields()}
        <button type="submit" id="webhook-create">Add endpoint</button>
      </form>
    </section>`;
}

export interface WebhooksView {
  organizationName: string;
  offered: boolean;
  endpoints: WebhookEndpoint[];
}

export function webhooksPage(signedIn: SignedIn, view: WebhooksView, options: { error?: string } = {}) {
  const format = formatFor(signedIn);
  const manage = view.offered && canManage(signedIn.role);
  return page({
    title: 'Webhooks',
    signedIn,
    path: webhooksPath,
    body: html`${pageHeader({
      title: 'Webhooks',
      lead: "Events of your organization are POSTed to these endpoints, signed with each endpoint's secret (Standard Webhooks).",
    })}
      ${notice('error', options.error)}
      ${view.offered ? '' : planNotice()}
      ${
        view.endpoints.length === 0
          ? emptyState({
              title: 'No endpoints yet.',
              next: manage ? 'Add the URL that should receive events below.' : 'An owner or admin of the organization adds them.',
            })
          : dataTable({
              caption: `Endpoints of ${view.organizationName}`,
              head: html`<th scope="col">URL</th><th scope="col">Description</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th>`,
              rows: view.endpoints.map(
                (endpoint) => html`<tr>
                  <td><a href="${endpointPath(endpoint.id)}">${endpoint.url}</a></td>
                  <td>${endpoint.description ?? ''}</td>
                  <td>${eventTypesOf(endpoint)}</td>
                  <td>${statusOf(endpoint, format)}</td>
                  <td>${time(format, endpoint.created_at)}</td>
                </tr>`,
              ),
            })
      }
      ${view.offered && canManage(signedIn.role) ? createForm(signedIn) : ''}`,
  });
}

export interface EndpointView {
  offered: boolean;
  endpoint: WebhookEndpoint;
  deliveries: WebhookDelivery[];
  /** The cursor of the next, older page of deliveries, if any. */
  olderCursor: string | null;
  /** Whether this page of the log came from a cursor (so "Newest" leads back to the first). */
  olderPage?: boolean;
}

function deliveryRow(signedIn: SignedIn, view: EndpointView, delivery: WebhookDelivery): Html {
  const replayable = view.offered && canManage(signedIn.role) && view.endpoint.status === 'enabled';
  const outcome = delivery.response_status !== null ? `HTTP ${delivery.response_status}` : (delivery.last_error ?? '—');
  const format = formatFor(signedIn);
  return html`<tr>
      <td><code>${delivery.id}</code>${delivery.replay_of ? html`<br>replays <code>${delivery.replay_of}</code>` : ''}</td>
      <td>${delivery.event_type}</td>
      <td>${delivery.status}</td>
      <td>${delivery.attempt_count}</td>
      <td>${time(format, delivery.last_attempt_at)}</td>
      <td>${outcome}${delivery.response_excerpt ? html`<br><code>${delivery.response_excerpt.slice(0, 200)}</code>` : ''}</td>
      ${
        canManage(signedIn.role)
          ? html`<td>${
              replayable
                ? html`<form method="post" action="${endpointPath(view.endpoint.id)}/deliveries/${delivery.id}/replay" class="inline">
                    ${csrfField(signedIn.csrfToken)}
                    <button type="submit" aria-label="Replay delivery ${delivery.id}">Replay</button>
                  </form>`
                : ''
            }</td>`
          : ''
      }
    </tr>`;
}

function deliveryLog(signedIn: SignedIn, view: EndpointView): Html {
  const manage = canManage(signedIn.role);
  return html`<section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Delivery log</h2>
      ${
        view.deliveries.length === 0
          ? emptyState({
              title: 'No deliveries yet.',
              next: 'Events are logged here as they are sent. Send a test event to see one now.',
            })
          : dataTable({
              caption: 'Deliveries, newest first',
              head: html`<th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th>
                <th scope="col">Last attempt</th><th scope="col">Last answer</th>${manage ? html`<th scope="col">Actions</th>` : ''}`,
              rows: view.deliveries.map((delivery) => deliveryRow(signedIn, view, delivery)),
            })
      }
      ${pager({
        label: 'Pages of deliveries',
        newest: view.olderPage ? endpointPath(view.endpoint.id) : undefined,
        older: view.olderCursor
          ? { href: `${endpointPath(view.endpoint.id)}?cursor=${encodeURIComponent(view.olderCursor)}`, text: 'Older deliveries' }
          : undefined,
      })}
    </section>`;
}

/** What an owner or admin can do with an endpoint; a member sees none of it. */
function endpointActions(signedIn: SignedIn, endpoint: WebhookEndpoint): Html {
  const base = endpointPath(endpoint.id);
  const post = (action: string, label: string, id: string, fields: Html | string = '') =>
    html`<form method="post" action="${base}/${action}" class="inline">${csrfField(signedIn.csrfToken)}${fields}<button type="submit" id="${id}">${label}</button></form>`;
  const toggle =
    endpoint.status === 'enabled'
      ? post('status', 'Disable', 'webhook-disable', html`<input type="hidden" name="status" value="disabled">`)
      : post('status', 'Enable', 'webhook-enable', html`<input type="hidden" name="status" value="enabled">`);
  return html`<section aria-labelledby="actions-heading" class="panel">
      <h2 id="actions-heading">Actions</h2>
      <div class="actions">${toggle}
        ${endpoint.status === 'enabled' ? post('test', 'Send a test event', 'webhook-test') : ''}
        <a href="${base}/delete" id="webhook-delete" class="button">Delete…</a></div>
      <h3>Signing secret</h3>
      <p>Rotating issues a new secret; the old one keeps signing alongside it for a grace period, so receivers can switch over.</p>
      <div class="actions">${post('reveal-secret', 'Reveal the secret', 'webhook-reveal')} ${post('rotate-secret', 'Rotate the secret', 'webhook-rotate')}</div>
    </section>
    <section aria-labelledby="edit-heading" class="panel">
      <h2 id="edit-heading">Edit</h2>
      <form method="post" action="${base}" class="stack">
        ${csrfField(signedIn.csrfToken)}
        ${endpointFields(endpoint)}
        <button type="submit" id="webhook-save">Save</button>
      </form>
    </section>`;
}

export function endpointPage(signedIn: SignedIn, view: EndpointView, options: { error?: string; info?: string } = {}) {
  const { endpoint } = view;
  const format = formatFor(signedIn);
  return page({
    title: `Webhook ${endpoint.url}`,
    signedIn,
    path: webhooksPath,
    body: html`<p><a href="${webhooksPath}">← Webhooks</a></p>
      <h1>Endpoint ${endpoint.url}</h1>
      ${notice('error', options.error)}
      ${notice('info', options.info)}
      ${view.offered ? '' : planNotice()}
      <dl>
        <dt>Description</dt><dd>${endpoint.description ?? '—'}</dd>
        <dt>Events</dt><dd>${eventTypesOf(endpoint)}</dd>
        <dt>Status</dt><dd>${statusOf(endpoint, format, 'webhook-status')}</dd>
        <dt>Secret last rotated</dt><dd>${time(format, endpoint.secret_rotated_at)}</dd>
        <dt>Created</dt><dd>${time(format, endpoint.created_at)}</dd>
      </dl>
      ${view.offered && canManage(signedIn.role) ? endpointActions(signedIn, endpoint) : ''}
      ${deliveryLog(signedIn, view)}
      <p><a href="${webhooksPath}">All endpoints</a></p>`,
  });
}

/**
 * The only pages that show a signing secret: the answer to the POST that created, rotated or revealed it
 * (never a redirect, so it is in no URL; `no-store` like every page).
 */
export function secretPage(signedIn: SignedIn, options: { heading: string; endpoint: WebhookEndpointWithSecret; note?: string }) {
  const { endpoint } = options;
  return page({
    title: options.heading,
    signedIn,
    path: webhooksPath,
    body: html`<h1>${options.heading}</h1>
      <p class="notice" role="alert">Copy this signing secret now. It is shown only on this page.</p>
      ${options.note ? html`<p>${options.note}</p>` : ''}
      <div class="panel">
        <p><label for="webhook-secret">Signing secret of ${endpoint.url}</label></p>
        <p class="inline wide"><input id="webhook-secret" class="secret" readonly value="${endpoint.secret}" size="60" spellcheck="false" autocomplete="off">
          <button type="button" class="copy" data-copy="webhook-secret" hidden>Copy</button></p>
      </div>
      <p><a href="${endpointPath(endpoint.id)}">Back to the endpoint</a></p>
      <script src="/dashboard/static/copy.js" defer></script>`,
  });
}

export function deleteConfirmPage(signedIn: SignedIn, endpoint: WebhookEndpoint) {
  return confirmPage(signedIn, {
    title: 'Delete endpoint',
    heading: `Delete endpoint ${endpoint.url}`,
    path: webhooksPath,
    question: 'Delete this endpoint and its delivery log? Pending deliveries are dropped. This cannot be undone.',
    action: `${endpointPath(endpoint.id)}/delete`,
    buttonId: 'webhook-delete-confirm',
    buttonLabel: 'Delete this endpoint',
    cancelHref: endpointPath(endpoint.id),
  });
}
