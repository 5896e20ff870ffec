import type { SignedIn } from '../domain/sessions.js';
import { html, type Renderable } from './html.js';
import { csrfField, page } from './layout.js';

/**
 * A confirmation as a page of its own, so a destructive action needs no JavaScript: what will happen, a
 * button that posts to `action` (with the form token), and a way back. Revoking a key, deleting a webhook
 * endpoint and unlinking an approval channel use it; its button's id is the page's stable hook for tests.
 */
export function confirmPage(
  signedIn: SignedIn,
  options: {
    title: string;
    heading: string;
    /** The navigation entry the page belongs to. */
    path: string;
    question: Renderable;
    /** What the action concerns, shown in full under the question (what an invoice sends, and to whom). */
    details?: Renderable;
    action: string;
    buttonId: string;
    buttonLabel: string;
    /** The button's look: `danger` unless the action destroys nothing (marking an invoice paid). */
    tone?: 'danger' | 'primary';
    cancelHref: string;
    /** The way back's words, when "Cancel" would read as the action itself. */
    cancelLabel?: string;
  },
) {
  return page({
    title: options.title,
    signedIn,
    path: options.path,
    body: html`<div class="confirm">
      <h1>${options.heading}</h1>
      <p>${options.question}</p>
      ${options.details ?? ''}
      <div class="actions">
        <form method="post" action="${options.action}" class="inline">
          ${csrfField(signedIn.csrfToken)}
          <button type="submit" id="${options.buttonId}" class="${options.tone ?? 'danger'}">${options.buttonLabel}</button>
        </form>
        <a href="${options.cancelHref}" class="button">${options.cancelLabel ?? 'Cancel'}</a>
      </div>
    </div>`,
  });
}
