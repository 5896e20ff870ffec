import { livemodeOf, type OAuthGrant } from '@voice/proto';
import {
  type AuthorizationParams,
  type AuthorizationRequest,
  describeResource,
  describeResourceUrl,
} from '../domain/oauth-authorization.js';
import type { GrantableOrganization } from '../domain/oauth-grants.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { badge, dataTable, emptyState, formatFor, testDataBadge, time } from './components.js';
import { html } from './html.js';
import { csrfField, notice, page } from './layout.js';

/**
 * The request's parameters the consent form carries back (and which the POST checks again). The scope the
 * client asked for travels as `requested_scope`: `scope` is the person's choice.
 */
const carried = ['client_id', 'redirect_uri', 'state', 'response_type', 'code_challenge', 'code_challenge_method', 'resource'];

export const defaultGrantQuota = 10_000;

export function consentPage(
  signedIn: SignedIn,
  view: {
    request: AuthorizationRequest;
    params: AuthorizationParams;
    organizations: GrantableOrganization[];
    chosen?: { orgId?: string; scope?: string; quota?: string; mode?: string };
    error?: string;
  },
) {
  const chosenMode = view.chosen?.mode === 'test' ? 'test' : 'live';
  const { request, organizations } = view;
  const offersReadWrite = request.requestedScope === 'read-write' && organizations.some((org) => org.maxScope === 'read-write');
  const chosenOrg = view.chosen?.orgId ?? signedIn.orgId;
  const chosenScope = offersReadWrite && view.chosen?.scope === 'read-write' ? 'read-write' : 'read';
  return page({
    title: 'Connect an app',
    signedIn,
    body: html`<h1>Connect ${request.client.name}?</h1>
      ${notice('error', view.error)}
      <p><strong>${request.client.name}</strong> (from <code>${request.client.origin}</code>) asks to use the voice API's
        MCP server as you. It will be sent back to <code>${new URL(request.redirectUri).origin}</code>.</p>
      <p>It will reach: <strong>${describeResource(request.selection)}</strong>, at <code>${request.resource}</code>, and nothing else.</p>
      <form method="post" action="/dashboard/oauth/authorize" class="stack">
        ${csrfField(signedIn.csrfToken)}
        ${carried.map((name) => (view.params[name] === undefined ? '' : html`<input type="hidden" name="${name}" value="${view.params[name]}">`))}
        ${view.params.scope === undefined ? '' : html`<input type="hidden" name="requested_scope" value="${view.params.scope}">`}
        <label for="org_id">Organization</label>
        <select id="org_id" name="org_id">
          ${organizations.map(
            (org) =>
              html`<option value="${org.orgId}" ${org.orgId === chosenOrg ? html`selected` : ''}>${org.name} (${org.role}, ${org.plan}: ${org.maxScope === 'read-write' ? 'read or read-write' : 'read only'})</option>`,
          )}
        </select>
        <fieldset>
          <legend>Which data</legend>
          <label><input type="radio" name="mode" value="live" ${chosenMode === 'live' ? html`checked` : ''}> Live data: real calls, messages and customers</label>
          <label><input type="radio" name="mode" value="test" ${chosenMode === 'test' ? html`checked` : ''}> Test data: test records and simulated calls; nothing reaches real phones or customers</label>
        </fieldset>
        <fieldset>
          <legend>What the app may do</legend>
          <label><input type="radio" name="scope" value="read" ${chosenScope === 'read' ? html`checked` : ''}> Read: look up calls, leads and reports</label>
          ${
            offersReadWrite
              ? html`<label><input type="radio" name="scope" value="read-write" ${chosenScope === 'read-write' ? html`checked` : ''}> Read and write: also place calls and change data (owners and admins, paid plans)</label>`
              : html`<p class="hint">Read only: ${request.selection.readonly ? 'the app asked for a read-only URL.' : request.requestedScope === 'read' ? 'the app asked for read access.' : 'members, and organizations on the Lite plan, grant read access only.'}</p>`
          }
        </fieldset>
        <label for="monthly_quota">Monthly quota (requests)</label>
        <input id="monthly_quota" name="monthly_quota" type="number" min="1" max="1000000000" required value="${view.chosen?.quota ?? String(defaultGrantQuota)}">
        <p class="hint">You can revoke the app at any time under Connected apps. It acts for you: it stops when you leave the organization, and loses write access if you become a member.</p>
        <div class="actions">
          <button type="submit" name="decision" value="approve" class="primary">Approve</button>
          <button type="submit" name="decision" value="deny">Deny</button>
        </div>
      </form>`,
  });
}

export const connectedAppsPath = '/dashboard/settings/connected-apps';

export function connectedAppsPage(signedIn: SignedIn, view: { grants: OAuthGrant[]; names: Map<string, string> }) {
  const manage = canManage(signedIn.role);
  const format = formatFor(signedIn);
  const rows = view.grants.map(
    (grant) => html`<tr>
      <th scope="row">${grant.client_name}<br><small><code>${grant.client_id}</code></small></th>
      <td>${view.names.get(grant.granted_by) ?? grant.granted_by}</td>
      <td>${grant.scope}</td>
      <td>${livemodeOf(grant.org_id) ? 'Live' : testDataBadge()}</td>
      <td>${describeResourceUrl(grant.resource)}</td>
      <td>${format.number(grant.monthly_used)} of ${format.number(grant.monthly_quota)}</td>
      <td>${time(format, grant.last_used_at, 'never')}</td>
      <td>${grant.status === 'active' ? badge('active', 'Active') : html`${badge('revoked', 'Revoked')} <small>${time(format, grant.revoked_at)}</small>`}</td>
      ${manage ? html`<td>${grant.status === 'active' ? html`<a href="${connectedAppsPath}/${grant.id}/revoke" aria-label="Revoke ${grant.client_name}" class="button">Revoke…</a>` : ''}</td>` : ''}
    </tr>`,
  );
  return page({
    title: 'Connected apps',
    signedIn,
    path: connectedAppsPath,
    body: html`<h1>Connected apps</h1>
      <p>Apps people connected through sign-in (OAuth), such as Claude or ChatGPT connectors. Each grant counts as an API key toward the plan's limit.
        An app reaches the MCP URL it was granted for, nothing else, and acts for the person who granted it: it is revoked when they leave the organization, and when they become a member if it may write.</p>
      ${
        view.grants.length === 0
          ? emptyState({
              title: 'No app is connected.',
              next: "Add the console's MCP server to an app such as Claude or ChatGPT; it asks you to sign in and approve here.",
            })
          : dataTable({
              caption: 'Grants of this organization',
              head: html`<th scope="col">App</th><th scope="col">Granted by</th><th scope="col">Scope</th><th scope="col">Data</th><th scope="col">Reaches</th><th scope="col">This month</th><th scope="col">Last used</th><th scope="col">Status</th>${manage ? html`<th scope="col">Actions</th>` : ''}`,
              rows,
            })
      }`,
  });
}

export function revokeGrantConfirmPage(signedIn: SignedIn, grant: OAuthGrant) {
  return page({
    title: 'Revoke app',
    signedIn,
    path: connectedAppsPath,
    body: html`<div class="confirm">
      <h1>Revoke ${grant.client_name}?</h1>
      <p>${grant.client_name} loses access at once: its tokens stop working and it cannot refresh them. It can ask again through sign-in.</p>
      <form method="post" action="${connectedAppsPath}/${grant.id}/revoke">
        ${csrfField(signedIn.csrfToken)}
        <div class="actions">
          <button type="submit" class="danger">Revoke ${grant.client_name}</button>
          <a href="${connectedAppsPath}" class="button">Cancel</a>
        </div>
      </form>
    </div>`,
  });
}
