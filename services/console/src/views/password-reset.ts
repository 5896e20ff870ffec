import type { ResetLinkState } from '../domain/password-reset.js';
import { csrfField, type FieldErrors, field, notice } from './components.js';
import { type Html, html } from './html.js';
import { page } from './layout.js';

export const forgotPasswordPath = '/dashboard/forgot-password';

/** The same words whether or not the address has an account: the page must not tell. */
export const resetRequestedMessage =
  'If an account uses that address, a link to choose a new password is on its way to it. Check your inbox (and spam folder).';

export function forgotPasswordPage(options: { csrfToken: string; email?: string; error?: string; info?: string }) {
  return page({
    title: 'Forgot password',
    body: html`<h1>Forgot your password?</h1>
      <p>Enter the e-mail address you sign in with. We will send you a link to choose a new password.</p>
      ${notice('error', options.error)}${notice('info', options.info)}
      <form method="post" action="${forgotPasswordPath}" class="stack">
        ${csrfField(options.csrfToken)}
        <label for="email">E-mail address</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${options.email ?? ''}">
        <button type="submit" id="send-reset-link">Send the link</button>
      </form>
      <p><a href="/dashboard/sign-in">Back to sign-in</a></p>`,
  });
}

/** The new password and its repetition, wherever one is set (a reset link, the account page). */
export function newPasswordFields(options: { minLength: number; hint?: string; errors?: FieldErrors | undefined }): Html {
  const errors = options.errors ?? {};
  const attributes = html`autocomplete="new-password" required minlength="${options.minLength}" maxlength="1024"`;
  return html`${field({
    id: 'new-password',
    name: 'password',
    label: 'New password',
    type: 'password',
    hint: `At least ${options.minLength} characters.${options.hint ? ` ${options.hint}` : ''}`,
    error: errors.password,
    attributes,
  })}
    ${field({
      id: 'new-password-confirmation',
      name: 'password_confirmation',
      label: 'Repeat the new password',
      type: 'password',
      error: errors.password_confirmation,
      attributes,
    })}`;
}

export function resetPasswordPage(options: {
  email: string;
  action: string;
  csrfToken: string;
  minLength: number;
  errors?: FieldErrors;
  error?: string;
}) {
  return page({
    title: 'Choose a new password',
    body: html`<h1>Choose a new password</h1>
      <p>For <strong>${options.email}</strong>. Every other session of this account ends when you save it.</p>
      ${notice('error', options.error)}
      <form method="post" action="${options.action}" class="stack">
        ${csrfField(options.csrfToken)}
        <input type="hidden" name="email" value="${options.email}" autocomplete="username">
        ${newPasswordFields({ minLength: options.minLength, errors: options.errors })}
        <button type="submit" id="save-password">Save and sign in</button>
      </form>`,
  });
}

const goneText: Record<Exclude<ResetLinkState['state'], 'usable'>, string> = {
  expired: 'This link has expired: a reset link works for a short while only.',
  used: 'This link has already been used: each reset link works once.',
  unknown: 'This link is not valid. Check that you copied all of it.',
};

export function resetLinkGonePage(state: keyof typeof goneText) {
  return page({
    title: 'Reset link not usable',
    body: html`<h1>This reset link cannot be used</h1>
      <p>${goneText[state]}</p>
      <p><a href="${forgotPasswordPath}">Ask for a new link</a> or <a href="/dashboard/sign-in">go to sign-in</a>.</p>`,
  });
}
