import type { DncChannel, DncCheck, DncEntry, TwoWayPage } from '@voice/proto';
import type { DncFilters } from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { dataTable, emptyState, type FieldErrors, field, formatFor, pageHeader, pager, time } from './components.js';
import { confirmPage } from './confirm.js';
import type { Formatter } from './format.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';
import { conversationPath, phoneField } from './messages.js';

export const dncPath = '/dashboard/do-not-call';
export const dncCheckPath = `${dncPath}/check`;
export const dncCheckHref = (phone: string) => `${dncCheckPath}?${new URLSearchParams({ phone }).toString()}`;
const removePath = (id: string) => `${dncPath}/${id}/remove`;

/** What an entry blocks, in words. */
export const channelWords: Record<DncChannel, string> = { voice: 'calls', sms: 'SMS', all: 'calls and SMS' };

/** The names of the people who added entries in the console (`created_by` is their user id); keys stay ids. */
export type AdderNames = Map<string, string>;

/** Who or what put the entry on the list, in words. */
function addedBy(entry: DncEntry, names: AdderNames): string {
  const who = entry.created_by ? (names.get(entry.created_by) ?? entry.created_by) : undefined;
  switch (entry.source) {
    case 'sms_stop':
      return 'The person, replying STOP by SMS';
    case 'manual':
      return who ? `${who}, in the console` : 'A person, in the console';
    case 'mcp':
      return who ? `An agent (MCP) with key ${who}` : 'An agent (MCP)';
    case 'import':
      return who ? `An import by ${who}` : 'An import';
    default:
      return who ? `The API, key ${who}` : 'The API';
  }
}

function entriesTable(signedIn: SignedIn, format: Formatter, entries: DncEntry[], names: AdderNames, caption: string): Html {
  const manage = canManage(signedIn.role);
  return dataTable({
    id: 'dnc-entries',
    caption,
    captionHidden: true,
    head: html`<th scope="col">Number</th><th scope="col">Blocks</th><th scope="col">Reason</th><th scope="col">Added</th><th scope="col">Added by</th>${
      manage ? html`<th scope="col">Actions</th>` : ''
    }`,
    rows: entries.map(
      (entry) => html`<tr id="dnc-${entry.id}">
        <th scope="row" class="nowrap"><a href="${dncCheckHref(entry.phone)}">${format.phone(entry.phone)}</a></th>
        <td>${channelWords[entry.channel]}</td>
        <td>${entry.reason ?? html`<span class="muted">none given</span>`}</td>
        <td class="nowrap">${time(format, entry.created_at)}</td>
        <td>${addedBy(entry, names)}</td>
        ${
          manage
            ? html`<td><a class="button" href="${removePath(entry.id)}" id="dnc-remove-${entry.id}">Remove…<span class="visually-hidden"> ${format.phone(entry.phone)} (${channelWords[entry.channel]})</span></a></td>`
            : ''
        }
      </tr>`,
    ),
  });
}

/** The form that checks one number (a GET to the check page). */
function checkForm(phone: string | undefined, error: string | undefined): Html {
  return html`<form method="get" action="${dncCheckPath}" class="filters" aria-label="Check a number">
    ${phoneField({ id: 'dnc-check-phone', name: 'phone', label: 'Check a number', value: phone, error })}
    <button type="submit" id="dnc-check">Check</button>
  </form>`;
}

/** Adding a number: owners and admins. One key per rendered form, so a second submit adds nothing more. */
export interface AddForm {
  formKey: string;
  phone?: string | undefined;
  channel?: string | undefined;
  reason?: string | undefined;
  errors?: FieldErrors;
  error?: string | undefined;
}

function addForm(signedIn: SignedIn, form: AddForm): Html {
  const chosen = form.channel ?? 'all';
  const channelOption = (value: DncChannel, label: string) =>
    html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${label}</option>`;
  return html`<section aria-labelledby="dnc-add-heading" class="panel">
    <h2 id="dnc-add-heading">Add a number</h2>
    ${notice('error', form.error)}
    <form method="post" action="${dncPath}" class="stack">
      ${csrfField(signedIn.csrfToken)}
      <input type="hidden" name="form_key" value="${form.formKey}">
      ${phoneField({ id: 'dnc-phone', name: 'phone', label: 'Number', value: form.phone, error: form.errors?.phone, required: true })}
      ${field({
        id: 'dnc-channel',
        name: 'channel',
        label: 'Block',
        error: form.errors?.channel,
        control: (
          describedBy,
          invalid,
        ) => html`<select id="dnc-channel" name="channel"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>
          ${channelOption('all', 'Calls and SMS')}
          ${channelOption('voice', 'Calls only')}
          ${channelOption('sms', 'SMS only')}
        </select>`,
      })}
      ${field({
        id: 'dnc-reason',
        name: 'reason',
        label: 'Reason (optional)',
        value: form.reason ?? '',
        hint: 'Why, for whoever reads the list later: “asked not to be called”.',
        error: form.errors?.reason,
        attributes: html`maxlength="500"`,
      })}
      <button type="submit" id="dnc-add">Add to the list</button>
    </form>
  </section>`;
}

export interface DncListView {
  filters: DncFilters;
  page: TwoWayPage<DncEntry>;
  names: AdderNames;
}

const listQuery = (filters: DncFilters, cursor?: string | null) =>
  new URLSearchParams({ ...(filters.search ? { search: filters.search } : {}), ...(cursor ? { cursor } : {}) }).toString();
const listHref = (filters: DncFilters, cursor?: string | null) => {
  const query = listQuery(filters, cursor);
  return query ? `${dncPath}?${query}` : dncPath;
};

/** The organization's do-not-call list, newest first, searchable; it follows additions and removals live. */
export function dncListPage(signedIn: SignedIn, view: DncListView, form?: AddForm) {
  const format = formatFor(signedIn);
  const { filters, page: entries } = view;
  const manage = canManage(signedIn.role);
  return page({
    title: 'Do-not-call list',
    signedIn,
    path: dncPath,
    live: true,
    body: html`${pageHeader({
      title: 'Do-not-call list',
      lead: 'Numbers your organization must not call or text: calls and messages to them are refused, whoever asks (the API, agents, sequences, this console). People who reply STOP are added by themselves.',
    })}
      ${checkForm(undefined, undefined)}
      <form method="get" action="${dncPath}" class="filters" aria-label="Search the list">
        <div class="filter-field"><label for="dnc-search">Search</label>
        <input id="dnc-search" name="search" type="search" maxlength="100" placeholder="Digits or a reason" value="${filters.search ?? ''}"></div>
        <button type="submit" class="primary">Search</button>
        ${filters.search ? html`<a href="${dncPath}" class="button" id="dnc-search-clear">Clear search</a>` : ''}
      </form>
      <div id="dnc-live" data-live="dnc" data-live-label="Do-not-call list">
      ${
        entries.data.length === 0
          ? emptyState({
              id: 'dnc-empty',
              title: filters.search ? 'No entry matches this search.' : 'The do-not-call list is empty.',
              next: filters.search
                ? html`Search for fewer digits or another word, or <a href="${dncPath}">show the whole list</a>.`
                : manage
                  ? 'Add a number below when someone asks not to be contacted; people who reply STOP to a message are added by themselves.'
                  : 'Owners and admins add numbers here; people who reply STOP to a message are added by themselves.',
            })
          : entriesTable(signedIn, format, entries.data, view.names, 'Numbers on the do-not-call list, newest first')
      }
      ${pager({
        label: 'Pages of the do-not-call list',
        newest: entries.prev_cursor ? listHref(filters) : undefined,
        newer: entries.prev_cursor ? { href: listHref(filters, entries.prev_cursor), id: 'dnc-newer', text: 'Newer entries' } : undefined,
        older: entries.next_cursor ? { href: listHref(filters, entries.next_cursor), id: 'dnc-older', text: 'Older entries' } : undefined,
      })}
      </div>
      ${manage && form ? addForm(signedIn, form) : ''}`,
  });
}

/** The answer in words: what a call or a message to the number would meet. */
export function dncAnswer(check: DncCheck, format: Formatter): string {
  const number = format.phone(check.phone);
  const { voice, sms } = check.blocks;
  if (voice && sms) return `${number} is blocked for calls and SMS: neither calls nor messages reach it.`;
  if (sms) return `${number} is blocked for SMS: messages to it are refused; calls are allowed.`;
  if (voice) return `${number} is blocked for calls: calls to it are refused; messages are allowed.`;
  return `${number} is not on the do-not-call list: calls and messages to it are allowed.`;
}

export interface DncCheckView {
  /** What was typed, when it is not a number. */
  typed?: string | undefined;
  error?: string | undefined;
  check?: DncCheck | undefined;
  names: AdderNames;
}

/** One number checked against the list, answered in words, with its entries and what can be done next. */
export function dncCheckPage(signedIn: SignedIn, view: DncCheckView, form?: AddForm) {
  const format = formatFor(signedIn);
  const { check } = view;
  const manage = canManage(signedIn.role);
  return page({
    title: check ? `Do-not-call check: ${format.phone(check.phone)}` : 'Check a number',
    signedIn,
    path: dncPath,
    body: html`${pageHeader({
      title: 'Check a number',
      lead: html`Whether a call or a message to a number would be refused. <a href="${dncPath}">The whole list</a>`,
    })}
      ${checkForm(check?.phone ?? view.typed, view.error)}
      ${
        check
          ? html`<p class="notice answer" role="status" id="dnc-answer">${dncAnswer(check, format)}</p>
            ${check.entries.length > 0 ? entriesTable(signedIn, format, check.entries, view.names, `Entries for ${format.phone(check.phone)}`) : ''}
            <p><a href="${conversationPath(check.phone)}" id="dnc-conversation">Messages with ${format.phone(check.phone)}</a></p>
            ${manage && form && !(check.blocks.voice && check.blocks.sms) ? addForm(signedIn, form) : ''}`
          : ''
      }`,
  });
}

/** The confirmation before an entry leaves the list (owners and admins); its button posts. */
export function dncRemoveConfirmPage(signedIn: SignedIn, entry: DncEntry) {
  const format = formatFor(signedIn);
  const number = format.phone(entry.phone);
  return confirmPage(signedIn, {
    title: `Remove ${number} from the do-not-call list`,
    heading: `Remove ${number} from the do-not-call list?`,
    path: dncPath,
    question: html`It is listed for ${channelWords[entry.channel]}${entry.reason ? html` (“${entry.reason}”)` : ''} since ${format.dateTime(entry.created_at)}. Once removed, the platform may ${
      entry.channel === 'voice' ? 'call' : entry.channel === 'sms' ? 'text' : 'call and text'
    } ${number} again. An agent can only ask for this; your confirmation here is a person's approval, and runs at once.`,
    action: removePath(entry.id),
    buttonId: 'dnc-remove-confirm',
    buttonLabel: 'Remove from the list',
    cancelHref: dncPath,
  });
}
