import { html } from './html.js';
import { csrfField, notice, page } from './layout.js';
import { forgotPasswordPath } from './password-reset.js';

export function signInPage(options: { csrfToken: string; email?: string; error?: string; info?: string; next?: string | undefined }) {
  return page({
    title: 'Sign in',
    body: html`<h1>Sign in</h1>
      ${notice('error', options.error)}${notice('info', options.info)}
      <form method="post" action="/dashboard/sign-in" class="stack">
        ${csrfField(options.csrfToken)}
        ${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
        <label for="email">E-mail address</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
      </form>
      <p><a href="${forgotPasswordPath}" id="forgot-password">Forgot password?</a></p>`,
  });
}
