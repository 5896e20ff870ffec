import { type ConsoleKey, livemodeOf, type organizationLimitsSchema, testModeLimits } from '@voice/proto';
import type { z } from 'zod';
import { dataOrgId } from '../domain/identity.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { badge, dataTable, emptyState, field, formatFor, pageHeader, pager, time } from './components.js';
import { confirmPage } from './confirm.js';
import type { Formatter } from './format.js';
import { html } from './html.js';
import { csrfField, notice, page } from './layout.js';

export const apiKeysPath = '/dashboard/settings/api';

export interface ApiKeysView {
  organization: z.output<typeof organizationLimitsSchema>;
  /** One page of keys, newest first; `nextCursor` leads to the older ones. */
  keys: ConsoleKey[];
  nextCursor: string | null;
  /** Whether this page came from a cursor (so "Newest" leads back to the first). */
  olderPage?: boolean;
  creators: Map<string, string>;
  now: Date;
}

/** The grace periods offered when rotating, as the select shows them. */
export const graceChoices = [
  { seconds: 0, label: 'End the old key now' },
  { seconds: 3_600, label: 'Old key works 1 more hour' },
  { seconds: 86_400, label: 'Old key works 24 more hours' },
  { seconds: 604_800, label: 'Old key works 7 more days' },
] as const;

/** Active, retiring after a rotation (until when), expired or revoked: what a person needs to know. */
function statusOf(key: ConsoleKey, now: Date, format: Formatter) {
  if (key.status === 'revoked') return badge('revoked');
  const ends = key.expires_at ? new Date(key.expires_at) : null;
  if (ends && ends <= now) return badge(key.rotated_to_id ? 'rotated' : 'expired');
  if (key.rotated_to_id) return html`${badge('pending', 'rotated')} <small>works until ${time(format, key.expires_at)}</small>`;
  return ends ? html`${badge('active')} <small>expires ${time(format, key.expires_at)}</small>` : badge('active');
}

const isLive = (key: ConsoleKey, now: Date) =>
  key.status === 'active' && !key.rotated_to_id && !(key.expires_at && new Date(key.expires_at) <= now);

/** The plan's key limit as a sentence, and whether it is reached. */
export function limitOf(organization: ApiKeysView['organization']) {
  const max = organization.max_keys;
  const reached = max !== null && organization.counted_keys >= max;
  const text =
    max === null
      ? `The ${organization.plan} plan allows any number of keys.`
      : `The ${organization.plan} plan allows ${max} key${max === 1 ? '' : 's'}; ${organization.counted_keys} in use.`;
  return { reached, text, limitMessage: `${text} Revoke a key or change the plan to create another.` };
}

function keyActions(signedIn: SignedIn, key: ConsoleKey) {
  return html`<div class="row-actions"><form method="post" action="${apiKeysPath}/keys/${key.id}/rotate" class="inline">
      ${csrfField(signedIn.csrfToken)}
      <label for="grace-${key.id}" class="visually-hidden">Grace period for the old key ${key.name}</label>
      <select id="grace-${key.id}" name="grace_seconds">
        ${graceChoices.map((choice) => html`<option value="${choice.seconds}" ${choice.seconds === 3_600 ? html`selected` : ''}>${choice.label}</option>`)}
      </select>
      <button type="submit" aria-label="Rotate ${key.name}">Rotate</button>
    </form>
    <a href="${apiKeysPath}/keys/${key.id}/revoke" aria-label="Revoke ${key.name}" class="button">Revoke…</a></div>`;
}

function keyRow(signedIn: SignedIn, view: ApiKeysView, key: ConsoleKey) {
  const manage = canManage(signedIn.role);
  const creator = key.created_by ? (view.creators.get(key.created_by) ?? key.created_by) : 'operator';
  const format = formatFor(signedIn);
  return html`<tr>
      <td>${key.name || '(unnamed)'}</td>
      <td><code class="nowrap">${key.display_prefix}${key.display_suffix}</code></td>
      <td>${key.scope}</td>
      <td>${format.number(key.monthly_used)} of ${format.number(key.monthly_quota)}</td>
      <td>${creator}, ${time(format, key.created_at)}</td>
      <td>${time(format, key.last_used_at, 'never')}</td>
      <td>${statusOf(key, view.now, format)}</td>
      ${manage ? html`<td>${isLive(key, view.now) ? keyActions(signedIn, key) : ''}</td>` : ''}
    </tr>`;
}

/** What the person typed and what was wrong with which field (`param`), when a creation was refused. */
export interface KeyFormState {
  error?: string;
  param?: string | undefined;
}

function createForm(signedIn: SignedIn, view: ApiKeysView, state: KeyFormState) {
  const limit = limitOf(view.organization);
  if (limit.reached) return html`<p class="notice" role="status" id="key-limit">${limit.limitMessage}</p>`;
  const readWrite = view.organization.read_write_keys;
  const errorOf = (param: string) => (state.param === param ? state.error : undefined);
  return html`<section aria-labelledby="create-heading" class="panel">
      <h2 id="create-heading">Create a key</h2>
      <form method="post" action="${apiKeysPath}/keys" class="stack">
        ${csrfField(signedIn.csrfToken)}
        ${field({ id: 'key-name', name: 'name', label: 'Name', error: errorOf('name'), attributes: html`required maxlength="100"` })}
        ${field({
          id: 'key-scope',
          name: 'scope',
          label: 'Scope',
          hint: readWrite
            ? 'read keys only read; read-write keys can also place calls and change data.'
            : `The ${view.organization.plan} plan allows read-only keys.`,
          error: errorOf('scope'),
          control: (
            describedBy,
            invalid,
          ) => html`<select id="key-scope" name="scope"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>
            <option value="read" selected>read</option>
            ${readWrite ? html`<option value="read-write">read-write</option>` : ''}
          </select>`,
        })}
        ${field({
          id: 'key-quota',
          name: 'monthly_quota',
          label: 'Monthly quota (requests)',
          type: 'number',
          value: '10000',
          error: errorOf('monthly_quota'),
          attributes: html`min="1" max="1000000000" required`,
        })}
        ${field({ id: 'key-expiry', name: 'expires_on', label: 'Expires on (optional, UTC)', type: 'date', error: errorOf('expires_on') })}
        <button type="submit" id="key-create">Create key</button>
      </form>
    </section>`;
}

/**
 * In test mode, what the keys of this page are: the gateway makes a `vk_test_` key for the test twin the
 * console asks as, with test mode's own quota.
 */
function testKeysNote(signedIn: SignedIn) {
  if (livemodeOf(dataOrgId(signedIn))) return '';
  const quota = formatFor(signedIn).number(testModeLimits.monthlyRequests);
  return html`<p class="notice" id="test-keys-note">These are test keys: each starts with <code>vk_test_</code> and acts on test data only,
    with test mode's own quota of ${quota} requests a month. Nothing they do reaches real phones or customers. Turn off "Test data" for live keys.</p>`;
}

export function apiKeysPage(signedIn: SignedIn, view: ApiKeysView, options: KeyFormState = {}) {
  const manage = canManage(signedIn.role);
  return page({
    title: 'API keys',
    signedIn,
    path: apiKeysPath,
    body: html`${pageHeader({ title: 'API keys', lead: limitOf(view.organization).text })}
      ${testKeysNote(signedIn)}
      ${notice('error', options.error)}
      ${
        view.keys.length === 0
          ? emptyState({
              title: 'No keys yet.',
              next: manage
                ? 'Create one below, then send it as a Bearer token with every API request.'
                : 'An owner or admin of the organization creates them.',
            })
          : dataTable({
              caption: `Keys of ${view.organization.name}`,
              head: html`<th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scope</th><th scope="col">This month</th>
                <th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th>
                ${manage ? html`<th scope="col">Actions</th>` : ''}`,
              rows: view.keys.map((key) => keyRow(signedIn, view, key)),
            })
      }
      ${pager({
        label: 'Pages of keys',
        newest: view.olderPage ? apiKeysPath : undefined,
        older: view.nextCursor
          ? { href: `${apiKeysPath}?${new URLSearchParams({ cursor: view.nextCursor }).toString()}`, id: 'keys-next', text: 'Older keys' }
          : undefined,
      })}
      ${manage ? createForm(signedIn, view, options) : ''}`,
  });
}

/**
 * The only page that ever shows a raw key: the answer to the POST that made it (never a redirect, so the
 * key is in no URL, and `no-store`). The copy button is hidden until /dashboard/static/copy.js enables it.
 */
export function newKeyPage(
  signedIn: SignedIn,
  options: { heading: string; key: string; record: ConsoleKey; publicBaseUrl: string; note?: string },
) {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  return page({
    title: options.heading,
    signedIn,
    path: apiKeysPath,
    body: html`<h1>${options.heading}</h1>
      <p class="notice" role="alert">Copy this key now. It will not be shown again.</p>
      ${testKeysNote(signedIn)}
      ${options.note ? html`<p>${options.note}</p>` : ''}
      <div class="panel">
        <p><label for="new-key">Key ${options.record.name}</label></p>
        <p class="inline wide"><input id="new-key" class="secret" readonly value="${options.key}" size="50" spellcheck="false" autocomplete="off">
          <button type="button" class="copy" data-copy="new-key" hidden>Copy</button></p>
        <h2>Try it</h2>
        <pre tabindex="0" aria-label="An example request"><code>curl -H "Authorization: Bearer ${options.key}" ${base}/api/v1/phone/calls</code></pre>
      </div>
      <p><a href="${apiKeysPath}">Back to API keys</a></p>
      <script src="/dashboard/static/copy.js" defer></script>`,
  });
}

export function revokeConfirmPage(signedIn: SignedIn, key: ConsoleKey) {
  return confirmPage(signedIn, {
    title: 'Revoke key',
    heading: `Revoke key ${key.name || key.display_prefix}`,
    path: apiKeysPath,
    question: html`Revoke <code>${key.display_prefix}${key.display_suffix}</code> (${key.scope})? Requests with it will be refused at once, on every
      replica. This cannot be undone.`,
    action: `${apiKeysPath}/keys/${key.id}/revoke`,
    buttonId: 'key-revoke-confirm',
    buttonLabel: 'Revoke this key',
    cancelHref: apiKeysPath,
  });
}
