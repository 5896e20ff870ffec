import { type Formatter, formatterFor } from './format.js';
import { type Html, html, type Renderable } from './html.js';

/**
 * The console's components: small functions that return markup styled by the one stylesheet
 * (static/console.css), so every page is built from the same parts. None needs JavaScript.
 */

/** The hidden field every state-changing form carries (checked by http/session.ts). */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A notice above a page's content: `role="alert"` for errors, so screen readers announce them. */
export function notice(kind: 'error' | 'info', text: string | undefined): Html {
  if (!text) return html``;
  return kind === 'error' ? html`<p class="notice error" role="alert">${text}</p>` : html`<p class="notice" role="status">${text}</p>`;
}

/** A finished action's confirmation, carried through the redirect (http/flash.ts), announced politely. */
export const toast = (text: string | undefined) => (text ? html`<p class="toast" role="status">${text}</p>` : '');

/** The formatter of the person a page is for; the default (English, UTC) before anyone signs in. */
export const formatFor = (person?: { locale?: string | undefined; user: { timeZone: string } }): Formatter =>
  formatterFor(person ? { locale: person.locale ?? 'en', timeZone: person.user.timeZone } : undefined);

/** A moment as a `<time>` element: the person's format, the exact instant for machines. */
export function time(format: Formatter, value: string | Date | null | undefined, empty = '—'): Html | string {
  if (value === null || value === undefined) return empty;
  const instant = typeof value === 'string' ? value : value.toISOString();
  return html`<time datetime="${instant}">${format.dateTime(value)}</time>`;
}

/** A page's heading row: the one `h1`, a line saying what the page is for, and its main actions. */
export function pageHeader(options: { title: Renderable; lead?: Renderable; actions?: Renderable }): Html {
  return html`<div class="page-header">
    <div><h1>${options.title}</h1>${options.lead ? html`<p class="lead">${options.lead}</p>` : ''}</div>
    ${options.actions ? html`<div class="actions">${options.actions}</div>` : ''}
  </div>`;
}

export type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

/** The tone of every status the console shows, whatever the product area: one table, one look. */
const tones: Record<string, Tone> = {
  queued: 'neutral',
  ringing: 'info',
  in_progress: 'info',
  'in-progress': 'info',
  'in progress': 'info',
  completed: 'success',
  failed: 'danger',
  canceled: 'neutral',
  delivered: 'success',
  undelivered: 'danger',
  sending: 'info',
  sent: 'info',
  received: 'success',
  blocked_dnc: 'warning',
  active: 'success',
  enabled: 'success',
  revoked: 'neutral',
  disabled: 'neutral',
  rotated: 'neutral',
  pending: 'warning',
  approved: 'success',
  executed: 'success',
  rejected: 'danger',
  expired: 'neutral',
  withdrawn: 'neutral',
  succeeded: 'success',
  retrying: 'warning',
  draft: 'neutral',
  paid: 'success',
  void: 'neutral',
  ready: 'info',
  done: 'success',
  to_do: 'neutral',
  // Leads
  new: 'info',
  contacted: 'info',
  qualified: 'success',
  unqualified: 'neutral',
  won: 'success',
  lost: 'danger',
  stopped: 'neutral',
};

/** A status as a badge; its words are the status itself (`text` when the page says more, e.g. until when). */
export function badge(status: string, text: Renderable = status.replaceAll('_', ' '), id?: string): Html {
  return html`<span class="badge ${tones[status] ?? 'neutral'}"${id ? html` id="${id}"` : ''}>${text}</span>`;
}

/** Marks a record of a test twin (`livemodeOf` its organization is false): test data, shown as such. */
export const testDataBadge = (): Html => html`<span class="badge warning">Test</span>`;

/**
 * A table that scrolls within itself (so a narrow screen never scrolls sideways) with its header row
 * sticking while it does. The scrolling box is focusable and named, so keyboard users can scroll it.
 */
export function dataTable(options: {
  id?: string;
  /** Read by screen readers; shown unless `captionHidden`. */
  caption: string;
  captionHidden?: boolean;
  head: Renderable;
  rows: Renderable;
}): Html {
  return html`<div class="table-wrap" role="region" aria-label="${options.caption}" tabindex="0">
    <table${options.id ? html` id="${options.id}"` : ''}>
      <caption${options.captionHidden ? html` class="visually-hidden"` : ''}>${options.caption}</caption>
      <thead><tr>${options.head}</tr></thead>
      <tbody>${options.rows}</tbody>
    </table>
  </div>`;
}

/**
 * Keyset paging: "Newest" goes back to the first page (where every list starts), "Older" on with the next
 * cursor, and, for lists that page both ways (a `prev_cursor`), "Newer" one page up.
 */
export function pager(options: {
  label: string;
  /** The first page's address, shown when this page is not it. */
  newest?: string | undefined;
  /** The page before this one, for lists that page both ways (`prev_cursor`). */
  newer?: { href: string; id?: string; text: string } | undefined;
  older?: { href: string; id?: string; text: string } | undefined;
}): Html | string {
  if (!options.newest && !options.newer && !options.older) return '';
  return html`<nav class="pager" aria-label="${options.label}">
    ${options.newest ? html`<a href="${options.newest}" class="button">Newest</a>` : ''}
    ${options.newer ? html`<a${options.newer.id ? html` id="${options.newer.id}"` : ''} href="${options.newer.href}" rel="prev" class="button">${options.newer.text}</a>` : ''}
    ${options.older ? html`<a${options.older.id ? html` id="${options.older.id}"` : ''} href="${options.older.href}" rel="next" class="button">${options.older.text}</a>` : ''}
  </nav>`;
}

/** A figure with what it counts, and where to read more. */
export function card(options: {
  label: Renderable;
  figure: Renderable;
  detail?: Renderable;
  href?: string;
  linkText?: string;
  id?: string;
}): Html {
  return html`<div class="card"${options.id ? html` id="${options.id}"` : ''}>
    <p class="card-label">${options.label}</p>
    <p class="card-figure">${options.figure}</p>
    ${options.detail ? html`<p class="card-detail">${options.detail}</p>` : ''}
    ${options.href ? html`<a href="${options.href}">${options.linkText ?? 'Details'}</a>` : ''}
  </div>`;
}

/** Nothing to list yet: what that means and what to do next. `id` stays on the sentence tests read. */
export function emptyState(options: { id?: string; title: Renderable; next?: Renderable }): Html {
  return html`<div class="empty">
    <p class="empty-title"${options.id ? html` id="${options.id}"` : ''}>${options.title}</p>
    ${options.next ? html`<p>${options.next}</p>` : ''}
  </div>`;
}

/** The API's errors name the field they are about (`param`); this maps them to the form's fields. */
export type FieldErrors = Partial<Record<string, string>>;

/**
 * A labelled field with its hint and its error: the control points at both (aria-describedby) and says it
 * is invalid (aria-invalid), so the error is read with the field, not only above the form.
 */
export function field(options: {
  id: string;
  name: string;
  label: Renderable;
  type?: string;
  value?: string | undefined;
  hint?: Renderable;
  error?: string | undefined;
  /** Further attributes of the input, e.g. html`required maxlength="100"`. */
  attributes?: Html;
  /** A control of another kind (select, textarea) built by the caller with `describedBy` and `invalid`. */
  control?: (describedBy: string | undefined, invalid: boolean) => Html;
}): Html {
  const hintId = options.hint ? `${options.id}-hint` : undefined;
  const errorId = options.error ? `${options.id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const invalid = Boolean(options.error);
  const control = options.control
    ? options.control(describedBy, invalid)
    : html`<input id="${options.id}" name="${options.name}" type="${options.type ?? 'text'}"${options.value === undefined ? '' : html` value="${options.value}"`}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''} ${options.attributes ?? ''}>`;
  return html`<div class="field${invalid ? ' invalid' : ''}">
    <label for="${options.id}">${options.label}</label>
    ${control}
    ${hintId ? html`<p id="${hintId}" class="hint">${options.hint}</p>` : ''}
    ${errorId ? html`<p id="${errorId}" class="field-error">${options.error}</p>` : ''}
  </div>`;
}
