import type { OAuthGrant } from '@voice/proto';
import type { CreatedInvitation } from '../domain/invitations.js';
import { organizationLabel } from '../domain/organizations.js';
import { canChangeRole, canManage, type Role, roles } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { dataTable, formatFor } from './components.js';
import { html } from './html.js';
import { csrfField, notice, page } from './layout.js';

export interface MembersView {
  members: Array<{ id: string; role: Role; createdAt: Date; user: { id: string; name: string; email: string } }>;
  invitations: Array<{ id: string; email: string; role: Role; expiresAt: Date }>;
}

function roleOptions(actor: Role, from: Role) {
  return roles
    .filter((role) => role === from || canChangeRole(actor, from, role))
    .map((role) => html`<option value="${role}" ${role === from ? html`selected` : ''}>${role}</option>`);
}

function memberRow(signedIn: SignedIn, member: MembersView['members'][number]) {
  const manage = canManage(signedIn.role) && (signedIn.role === 'owner' || member.role !== 'owner');
  const actions = manage
    ? html`<div class="row-actions"><form method="post" action="/dashboard/members/${member.id}/role" class="inline">
          ${csrfField(signedIn.csrfToken)}
          <label for="role-${member.id}" class="visually-hidden">Role of ${member.user.name}</label>
          <select id="role-${member.id}" name="role">${roleOptions(signedIn.role, member.role)}</select>
          <button type="submit">Change role</button>
        </form>
        <a href="/dashboard/members/${member.id}/remove" aria-label="Remove ${member.user.name}…" class="button danger">Remove…</a></div>`
    : html``;
  return html`<tr>
      <td>${member.user.name}</td>
      <td>${member.user.email}</td>
      <td>${member.role}</td>
      <td>${formatFor(signedIn).day(member.createdAt)}</td>
      ${canManage(signedIn.role) ? html`<td>${actions}</td>` : ''}
    </tr>`;
}

function inviteForm(signedIn: SignedIn) {
  return html`<section aria-labelledby="invite-heading" class="panel">
      <h2 id="invite-heading">Invite someone</h2>
      <form method="post" action="/dashboard/members/invitations" class="stack">
        ${csrfField(signedIn.csrfToken)}
        <label for="invite-email">E-mail address</label>
        <input id="invite-email" name="email" type="email" required>
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          ${roles
            .filter((role) => role !== 'owner' || signedIn.role === 'owner')
            .map((role) => html`<option value="${role}" ${role === 'member' ? html`selected` : ''}>${role}</option>`)}
        </select>
        <button type="submit">Create invitation link</button>
      </form>
    </section>`;
}

export function membersPage(signedIn: SignedIn, view: MembersView, messages: { error?: string } = {}) {
  const manager = canManage(signedIn.role);
  return page({
    title: 'Members',
    signedIn,
    path: '/dashboard/members',
    body: html`<h1>Members</h1>
      ${notice('error', messages.error)}
      ${dataTable({
        caption: `People of organization ${organizationLabel(signedIn)}`,
        head: html`<th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Since</th>${manager ? html`<th scope="col">Actions</th>` : ''}`,
        rows: view.members.map((member) => memberRow(signedIn, member)),
      })}
      ${
        manager
          ? html`<p class="hint">Apps a person connected (Connected apps) act for them: removing the person revokes them, and making an owner or admin a member revokes those that may write.</p>`
          : ''
      }
      ${
        manager
          ? html`<section aria-labelledby="pending-heading">
              <h2 id="pending-heading">Pending invitations</h2>
              ${
                view.invitations.length === 0
                  ? html`<p>None.</p>`
                  : html`<ul>${view.invitations.map((invitation) => html`<li>${invitation.email} as ${invitation.role}, until ${formatFor(signedIn).day(invitation.expiresAt)}</li>`)}</ul>`
              }
            </section>
            ${inviteForm(signedIn)}`
          : ''
      }`,
  });
}

/** Shown once after an invitation is made: only the link's hash is stored, so it cannot be shown again. */
export function invitationCreatedPage(signedIn: SignedIn, invitation: CreatedInvitation) {
  return page({
    title: 'Invitation created',
    signedIn,
    path: '/dashboard/members',
    body: html`<h1>Invitation created</h1>
      <p>Send this link to ${invitation.email}. It works once, until ${formatFor(signedIn).day(invitation.expires_at)}, and is not shown again.</p>
      <div class="panel stack">
        <label for="invitation-link">Invitation link</label>
        <input id="invitation-link" type="text" readonly value="${invitation.link}" class="wide">
      </div>
      <p><a href="/dashboard/members">Back to members</a></p>`,
  });
}

/**
 * Confirms removing someone, naming the apps they connected in this organization: the removal revokes
 * them (their grants act for them), which the manager reads here before confirming.
 */
export function removeMemberConfirmPage(
  signedIn: SignedIn,
  view: { membershipId: string; user: { name: string; email: string }; apps: OAuthGrant[] },
) {
  const { user, apps } = view;
  return page({
    title: 'Remove member',
    signedIn,
    path: '/dashboard/members',
    body: html`<div class="confirm">
      <h1>Remove ${user.name}?</h1>
      <p>${user.name} (${user.email}) loses access to ${organizationLabel(signedIn)} at once.</p>
      ${
        apps.length === 0
          ? html`<p>${user.name} has connected no app here.</p>`
          : html`<p>Removing ${user.name} also revokes the ${apps.length === 1 ? 'app' : `${apps.length} apps`} they connected, which stop working at once:</p>
            <ul>${apps.map((app) => html`<li>${app.client_name} (${app.scope})</li>`)}</ul>`
      }
      <div class="actions">
        <form method="post" action="/dashboard/members/${view.membershipId}/remove" class="inline">
          ${csrfField(signedIn.csrfToken)}
          <button type="submit" id="member-remove-confirm" class="danger">Remove ${user.name}</button>
        </form>
        <a href="/dashboard/members" class="button">Cancel</a>
      </div>
    </div>`,
  });
}
