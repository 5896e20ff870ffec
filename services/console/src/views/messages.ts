import { type DncCheck, type RecordEvent, type Sms, type SmsStatus, smsMaxBodyLength, smsStatuses, type TwoWayPage } from '@voice/proto';
import { type MessageFilters, messageQueryString } from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { badge, dataTable, emptyState, type FieldErrors, field, formatFor, pageHeader, pager, time } from './components.js';
import type { Formatter } from './format.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';
import { recordEventsSection } from './record-events.js';

export const messagesPath = '/dashboard/messages';
export const newMessagePath = `${messagesPath}/new`;
export const messagePath = (id: string) => `${messagesPath}/${id}`;
export const conversationPath = (phone: string, cursor?: string | null) =>
  `${messagesPath}/conversation?${new URLSearchParams({ phone, ...(cursor ? { cursor } : {}) }).toString()}`;

/** Each status in words; the badge's tone comes from the components' one table. */
export const smsStatusLabels: Record<SmsStatus, string> = {
  queued: 'queued',
  sending: 'sending',
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  received: 'received',
  blocked_dnc: 'blocked by DNC',
  canceled: 'canceled',
};

const smsBadge = (sms: Sms) => badge(sms.status, smsStatusLabels[sms.status], `sms-status-${sms.id}`);

/** The number on the other end: who wrote to us, or whom we wrote to. A conversation is with that number. */
export const otherParty = (sms: Sms) => (sms.direction === 'inbound' ? sms.from : sms.to);

/** Money in minor units (cents), as the platform keeps it, in the person's format. */
export function moneyOf(format: Formatter, cost: { amount: number; currency: string } | null): string {
  if (!cost) return '—';
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: cost.currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return `${cost.amount} ${cost.currency} (minor units)`;
  }
  return format.money(cost.amount / 10 ** digits, cost.currency);
}

const truncated = (text: string, length = 80) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(no text)';
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
};

const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}" ${value === (current ?? '') ? html`selected` : ''}>${label}</option>`;

const filterField = (id: string, label: string, control: Html) =>
  html`<div class="filter-field"><label for="${id}">${label}</label>${control}</div>`;

const hasFilters = (filters: MessageFilters) =>
  Boolean(filters.direction || filters.status || filters.lead_id || filters.from || filters.to);

function filterForm(filters: MessageFilters, timeZone: string): Html {
  return html`<form method="get" action="${messagesPath}" class="filters" aria-label="Filter the messages">
    ${filterField(
      'messages-direction',
      'Direction',
      html`<select id="messages-direction" name="direction">
        ${option('', 'Both directions', filters.direction)}
        ${option('inbound', 'Received (inbound)', filters.direction)}
        ${option('outbound', 'Sent (outbound)', filters.direction)}
      </select>`,
    )}
    ${filterField(
      'messages-status',
      'Status',
      html`<select id="messages-status" name="status">
        ${option('', 'Any status', filters.status)}
        ${smsStatuses.map((status) => option(status, smsStatusLabels[status], filters.status))}
      </select>`,
    )}
    ${filterField(
      'messages-lead',
      'Lead id',
      html`<input id="messages-lead" name="lead_id" type="text" maxlength="45" placeholder="lead_…" value="${filters.lead_id ?? ''}">`,
    )}
    ${filterField(
      'messages-from',
      `From (day, ${timeZone})`,
      html`<input id="messages-from" name="from" type="date" value="${filters.from ?? ''}">`,
    )}
    ${filterField('messages-to', `To (day, ${timeZone})`, html`<input id="messages-to" name="to" type="date" value="${filters.to ?? ''}">`)}
    <button type="submit" class="primary">Filter</button>
    ${hasFilters(filters) ? html`<a href="${messagesPath}" class="button" id="messages-clear">Clear filters</a>` : ''}
  </form>`;
}

function messageRow(format: Formatter, sms: Sms): Html {
  return html`<tr id="sms-${sms.id}">
    <td class="nowrap"><a href="${messagePath(sms.id)}">${time(format, sms.created_at)}</a></td>
    <td>${sms.direction === 'inbound' ? 'Received' : 'Sent'}</td>
    <td class="nowrap">${format.phone(sms.from)}</td>
    <td class="nowrap">${format.phone(sms.to)}</td>
    <td><a href="${conversationPath(otherParty(sms))}">${truncated(sms.body)}</a>${sms.error ? html`<br><small>${sms.error.message}</small>` : ''}</td>
    <td>${smsBadge(sms)}</td>
    <td class="num">${format.number(sms.segments)}</td>
    <td class="num nowrap">${moneyOf(format, sms.cost)}</td>
  </tr>`;
}

export interface MessagesView {
  filters: MessageFilters;
  page: TwoWayPage<Sms>;
}

/** The organization's messages, newest first, filtered by a GET form; the table follows new messages and statuses live. */
export function messagesPage(signedIn: SignedIn, view: MessagesView) {
  const { filters, page: messages } = view;
  const format = formatFor(signedIn);
  const manage = canManage(signedIn.role);
  const query = messageQueryString(filters);
  const empty = hasFilters(filters)
    ? emptyState({
        id: 'messages-empty',
        title: 'No messages match these filters.',
        next: html`Widen them: both directions, any status, an earlier first day; or <a href="${messagesPath}">clear the filters</a>.`,
      })
    : emptyState({
        id: 'messages-empty',
        title: 'No messages yet.',
        next: manage
          ? html`<a href="${newMessagePath}">Send a message</a> here, or with the API (<code>POST /api/v1/phone/sms</code>); replies to your numbers appear here as they arrive.`
          : 'Messages your organization sends (through the API or its agents) appear here, and replies as they arrive.',
      });
  return page({
    title: 'Messages',
    signedIn,
    path: messagesPath,
    live: true,
    body: html`${pageHeader({
      title: 'Messages',
      lead: html`Text messages your organization sent and received, newest first. Open one to read the whole conversation with that number. Times are in ${format.audience.timeZone}.`,
      actions: manage ? html`<a id="messages-new" class="button primary" href="${newMessagePath}">Send a message</a>` : undefined,
    })}
      ${filterForm(filters, format.audience.timeZone)}
      <div id="messages-live" data-live="sms" data-live-label="Messages">
      ${
        messages.data.length === 0
          ? empty
          : dataTable({
              id: 'messages',
              caption: 'Messages, newest first',
              captionHidden: true,
              head: html`<th scope="col">Time</th><th scope="col">Direction</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Message</th><th scope="col">Status</th><th scope="col" class="num">Segments</th><th scope="col" class="num">Cost</th>`,
              rows: messages.data.map((sms) => messageRow(format, sms)),
            })
      }
      ${pager({
        label: 'Pages of messages',
        newest: messages.prev_cursor ? `${messagesPath}${query ? `?${query}` : ''}` : undefined,
        newer: messages.prev_cursor
          ? { href: `${messagesPath}?${messageQueryString(filters, messages.prev_cursor)}`, id: 'messages-newer', text: 'Newer messages' }
          : undefined,
        older: messages.next_cursor
          ? { href: `${messagesPath}?${messageQueryString(filters, messages.next_cursor)}`, id: 'messages-older', text: 'Older messages' }
          : undefined,
      })}
      </div>`,
  });
}

/** A phone number's field (to send to, to list, to check): the form people type it in, and its error. */
export function phoneField(options: {
  id: string;
  name: string;
  label: string;
  value?: string | undefined;
  error?: string | undefined;
  required?: boolean;
}) {
  return field({
    ...options,
    type: 'tel',
    value: options.value ?? '',
    hint: 'In international form: + and the country code, e.g. +14155550123.',
    attributes: html`${options.required ? html`required ` : ''}maxlength="40" autocomplete="off"`,
  });
}

/** A send form's state: its key (one per rendered form), what was typed, and the refusal of a send that failed. */
export interface SendForm {
  formKey: string;
  to?: string | undefined;
  body?: string | undefined;
  errors?: FieldErrors;
  /** A refusal that is no field's (the plan, a quota). */
  error?: string | undefined;
}

const bodyHint = `Up to ${smsMaxBodyLength.toLocaleString('en')} characters. A long message goes out in parts (segments), each billed: 160 characters per part, 70 with emoji or accents.`;

function bodyField(form: SendForm, label: string): Html {
  return field({
    id: 'message-body',
    name: 'body',
    label,
    hint: bodyHint,
    error: form.errors?.body,
    control: (describedBy, invalid) =>
      html`<textarea id="message-body" name="body" rows="4" maxlength="${smsMaxBodyLength}" required${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${form.body ?? ''}</textarea>`,
  });
}

/** The send box under a conversation, for owners and admins: the number is the conversation's. */
function sendBox(signedIn: SignedIn, phone: string, form: SendForm, format: Formatter): Html {
  return html`<section aria-labelledby="send-heading" class="panel send-box">
    <h2 id="send-heading">Send a message</h2>
    ${notice('error', form.error)}
    ${form.errors?.to ? html`<p class="notice error" role="alert" id="message-to-error">${form.errors.to}</p>` : ''}
    <form method="post" action="${messagesPath}" class="stack">
      ${csrfField(signedIn.csrfToken)}
      <input type="hidden" name="form_key" value="${form.formKey}">
      <input type="hidden" name="to" value="${phone}">
      <input type="hidden" name="context" value="conversation">
      ${bodyField(form, `Message to ${format.phone(phone)}`)}
      <button type="submit" id="message-send">Send</button>
    </form>
  </section>`;
}

function chatMessage(format: Formatter, sms: Sms): Html {
  const inbound = sms.direction === 'inbound';
  return html`<li class="chat-message ${inbound ? 'inbound' : 'outbound'}" id="sms-${sms.id}">
    <p class="chat-who">${inbound ? `${format.phone(sms.from)} wrote` : `Sent from ${format.phone(sms.from)}`}</p>
    <p class="chat-body">${sms.body === '' ? html`<em>(no text)</em>` : sms.body}</p>
    <p class="chat-meta"><a href="${messagePath(sms.id)}">${time(format, sms.created_at)}</a> ${smsBadge(sms)}${
      sms.direction === 'outbound'
        ? html` <span>${format.number(sms.segments)} ${sms.segments === 1 ? 'segment' : 'segments'}, ${moneyOf(format, sms.cost)}</span>`
        : ''
    }</p>
    ${sms.error ? html`<p class="chat-error">${sms.error.message}</p>` : ''}
  </li>`;
}

/** What the do-not-call list says of the number, in words, when it blocks anything. */
function dncNotice(check: DncCheck, format: Formatter): Html | string {
  if (!check.listed) return '';
  const what = check.blocks.voice && check.blocks.sms ? 'calls and messages' : check.blocks.sms ? 'messages' : 'calls';
  return html`<p class="notice" role="status" id="conversation-dnc">${format.phone(check.phone)} is on the do-not-call list for ${what}${
    check.blocks.sms ? ': messages to it are refused' : ''
  }. <a href="/dashboard/do-not-call/check?${new URLSearchParams({ phone: check.phone }).toString()}">See its listing</a>.</p>`;
}

export interface ConversationView {
  phone: string;
  page: TwoWayPage<Sms>;
  /** Whether this page came from a cursor (so "Latest" leads back to the newest messages). */
  paged: boolean;
  dnc: DncCheck;
}

/**
 * Every message with one number, both directions, oldest at the top like a chat (a page holds the newest
 * ones; Older and Newer move through the rest), each with its time and delivery status, which follow live.
 */
export function conversationPage(signedIn: SignedIn, view: ConversationView, form?: SendForm) {
  const format = formatFor(signedIn);
  const { phone, page: messages } = view;
  const shown = format.phone(phone);
  const manage = canManage(signedIn.role);
  return page({
    title: `Conversation with ${shown}`,
    signedIn,
    path: messagesPath,
    live: true,
    body: html`${pageHeader({
      title: html`Conversation with <span class="nowrap">${shown}</span>`,
      lead: html`Every message with this number, both directions, oldest at the top. Times are in ${format.audience.timeZone}. <a href="${messagesPath}">All messages</a>`,
    })}
      ${dncNotice(view.dnc, format)}
      <div id="conversation-live" data-live="sms" data-live-label="Conversation">
      ${pager({
        label: 'Older messages',
        older: messages.next_cursor
          ? { href: conversationPath(phone, messages.next_cursor), id: 'conversation-older', text: 'Older messages' }
          : undefined,
      })}
      ${
        messages.data.length === 0
          ? emptyState({
              id: 'conversation-empty',
              title: view.paged ? 'No more messages this way.' : `No messages with ${shown} yet.`,
              next: view.paged
                ? html`<a href="${conversationPath(phone)}">Back to the latest messages</a>.`
                : manage
                  ? 'Write the first one below; replies from this number will appear here as they arrive.'
                  : 'Messages with this number, sent or received, appear here as they happen.',
            })
          : html`<ol class="chat" aria-label="Messages with ${shown}, oldest first">${[...messages.data].reverse().map((sms) => chatMessage(format, sms))}</ol>`
      }
      ${pager({
        label: 'Newer messages',
        newest: messages.prev_cursor ? conversationPath(phone) : undefined,
        newer: messages.prev_cursor
          ? { href: conversationPath(phone, messages.prev_cursor), id: 'conversation-newer', text: 'Newer messages' }
          : undefined,
      })}
      </div>
      ${manage && form ? sendBox(signedIn, phone, form, format) : ''}`,
  });
}

/** The form to write to any number (`?to=` fills it in): owners and admins. */
export function newMessagePage(signedIn: SignedIn, form: SendForm) {
  return page({
    title: 'Send a message',
    signedIn,
    path: messagesPath,
    body: html`${pageHeader({
      title: 'Send a message',
      lead: html`An SMS from your organization's number. Numbers on the do-not-call list for messages are refused. <a href="${messagesPath}">All messages</a>`,
    })}
      ${notice('error', form.error)}
      <form method="post" action="${messagesPath}" class="stack panel">
        ${csrfField(signedIn.csrfToken)}
        <input type="hidden" name="form_key" value="${form.formKey}">
        ${phoneField({ id: 'message-to', name: 'to', label: 'To', value: form.to, error: form.errors?.to, required: true })}
        ${bodyField(form, 'Message')}
        <button type="submit" id="message-send">Send</button>
      </form>`,
  });
}

export interface MessageView {
  sms: Sms;
  events: { data: RecordEvent[]; has_more: boolean } | undefined;
}

/** One message: who wrote to whom, its text, status, parts and cost, and the events it sent to webhook endpoints. */
export function messagePage(signedIn: SignedIn, view: MessageView) {
  const { sms } = view;
  const format = formatFor(signedIn);
  const inbound = sms.direction === 'inbound';
  const title = inbound ? `Message from ${format.phone(sms.from)}` : `Message to ${format.phone(sms.to)}`;
  return page({
    title,
    signedIn,
    path: messagesPath,
    live: true,
    body: html`<p><a href="${conversationPath(otherParty(sms))}">← Conversation with ${format.phone(otherParty(sms))}</a></p>
      <div id="message-overview" data-live="sms" data-live-resource="${sms.id}" data-live-label="Message status">
        ${pageHeader({ title, lead: html`${smsBadge(sms)} <code>${sms.id}</code>` })}
        <p class="chat-body" id="message-body">${sms.body === '' ? html`<em>(no text)</em>` : sms.body}</p>
        ${sms.error ? html`<p class="chat-error" id="message-error">${sms.error.message}</p>` : ''}
        <dl id="message-facts">
          <dt>Direction</dt><dd>${inbound ? 'received' : 'sent'}</dd>
          <dt>From</dt><dd>${format.phone(sms.from)}</dd>
          <dt>To</dt><dd>${format.phone(sms.to)}</dd>
          <dt>Time</dt><dd>${time(format, sms.created_at)}</dd>
          <dt>Parts</dt><dd>${format.number(sms.segments)} ${sms.segments === 1 ? 'segment' : 'segments'}</dd>
          <dt>Cost</dt><dd>${moneyOf(format, sms.cost)}</dd>
        </dl>
      </div>
      <section aria-labelledby="message-events-heading">
        <h2 id="message-events-heading">Events and webhook deliveries</h2>
        ${recordEventsSection(format, view.events, 'message')}
      </section>`,
  });
}
