import type { InvitationState } from '../domain/invitations.js';
import { html } from './html.js';
import { csrfField, notice, page } from './layout.js';

type Usable = Extract<InvitationState, { state: 'usable' }>;

export function acceptInvitationPage(options: {
  invitation: Usable;
  /** The organization's name as the gateway has it; its id when the gateway did not say. */
  organizationName: string;
  action: string;
  csrfToken: string;
  minLength: number;
  error?: string;
  name?: string;
}) {
  const { invitation } = options;
  const fields = invitation.hasAccount
    ? html`<p>You already have an account as <strong>${invitation.email}</strong>. Enter its password to join.</p>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>`
    : html`<label for="name">Your name</label>
        <input id="name" name="name" type="text" autocomplete="name" required maxlength="100" value="${options.name ?? ''}">
        <label for="password">Choose a password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${options.minLength}" aria-describedby="password-hint">
        <p id="password-hint" class="hint">At least ${options.minLength} characters.</p>
        <label for="password_confirmation">Repeat the password</label>
        <input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required minlength="${options.minLength}">`;
  return page({
    title: 'Accept invitation',
    body: html`<h1>Join organization ${options.organizationName}</h1>
      <p>Invitation for <strong>${invitation.email}</strong> as ${invitation.role}.</p>
      ${notice('error', options.error)}
      <form method="post" action="${options.action}" class="stack">
        ${csrfField(options.csrfToken)}
        <input type="hidden" name="email" value="${invitation.email}" autocomplete="username">
        ${fields}
        <button type="submit">Accept and sign in</button>
      </form>`,
  });
}

const goneText = {
  expired: 'This invitation has expired. Ask an owner or admin of the organization for a new one.',
  used: 'This invitation has already been used. Sign in with the account it created.',
  unknown: 'This invitation link is not valid. Check that you copied all of it, or ask for a new one.',
} as const;

export function invitationGonePage(state: keyof typeof goneText) {
  return page({
    title: 'Invitation not usable',
    body: html`<h1>This invitation cannot be used</h1>
      <p>${goneText[state]}</p>
      <p><a href="/dashboard/sign-in">Go to sign-in</a></p>`,
  });
}
