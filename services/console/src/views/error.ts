import type { SignedIn } from '../domain/sessions.js';
import { html } from './html.js';
import { page } from './layout.js';

const titles: Record<number, string> = {
  400: 'That request was not valid',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That change is not possible',
  413: 'That was too much to send',
  429: 'Too many attempts',
  503: 'Temporarily unavailable',
};

export function errorPage(status: number, message: string, signedIn?: SignedIn) {
  const title = titles[status] ?? 'Something went wrong';
  return page({
    title,
    ...(signedIn ? { signedIn } : {}),
    body: html`<div class="empty">
      <p class="muted">Error ${status}</p>
      <h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/dashboard" class="button">Back to the console</a></p>
    </div>`,
  });
}
