import { dayIn } from '@voice/kit';
import { type CallListItem, type CallOutcome, callOutcomes, type Lead, type Overview, type OverviewBucket } from '@voice/proto';
import { organizationLabel } from '../domain/organizations.js';
import { defaultPeriod, type OverviewBounds, type OverviewData, type OverviewPeriod } from '../domain/overview.js';
import type { SignedIn } from '../domain/sessions.js';
import { badge, card, dataTable, emptyState, formatFor, notice, pageHeader, type Tone, time } from './components.js';
import type { Formatter } from './format.js';
import { type Html, html, type Renderable } from './html.js';
import { page, preferencesPath } from './layout.js';
import {
  approvalsListHref,
  type CallsFilters,
  callHref,
  callsListHref,
  type DayRange,
  type LeadsTarget,
  leadsHref,
  messagesListHref,
  newCallHref,
  oneDay,
} from './list-links.js';

export const overviewPath = '/dashboard';

/** The period control's links: `/dashboard?period=…` (7 days is also plain `/dashboard`). */
export const overviewHref = (period: OverviewPeriod) => `${overviewPath}?period=${period}`;

const periodLabels: Record<OverviewPeriod, { tab: string; lead: string; versus: string }> = {
  today: { tab: 'Today', lead: 'Today so far', versus: 'yesterday by this time' },
  '7d': { tab: '7 days', lead: 'The last 7 days, today included', versus: 'the 7 days before' },
  '30d': { tab: '30 days', lead: 'The last 30 days, today included', versus: 'the 30 days before' },
};

const outcomeLabels: Record<CallOutcome | 'none', string> = {
  qualified_lead: 'Qualified lead',
  booked: 'Booked',
  message_taken: 'Message taken',
  not_interested: 'Not interested',
  voicemail: 'Voicemail',
  wrong_number: 'Wrong number',
  spam: 'Spam',
  none: 'No outcome (yet)',
};

/** The colour of each outcome's bar: a status tone of the design tokens (the words carry the meaning). */
const outcomeTones: Record<CallOutcome | 'none', Tone> = {
  qualified_lead: 'success',
  booked: 'success',
  message_taken: 'info',
  not_interested: 'neutral',
  voicemail: 'neutral',
  wrong_number: 'warning',
  spam: 'danger',
  none: 'neutral',
};

// ---------------------------------------------------------------------------------------------------------
// Figures

/** Intl formatters for the overview's own figures (percentages, short days, hours), one set per audience. */
const extras = new Map<
  string,
  { percent: Intl.NumberFormat; shortDay: Intl.DateTimeFormat; hour: Intl.DateTimeFormat; clockHour: Intl.DateTimeFormat }
>();
function extraFormats(format: Formatter) {
  const { locale, timeZone } = format.audience;
  const key = `${locale}|${timeZone}`;
  let found = extras.get(key);
  if (!found) {
    found = {
      percent: new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }),
      shortDay: new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'short', day: 'numeric' }),
      hour: new Intl.DateTimeFormat(locale, { timeZone, hour: 'numeric', minute: '2-digit' }),
      // An hour of any day's clock, for the axis (`6 AM`, `18`): formatted from a UTC instant at that hour.
      clockHour: new Intl.DateTimeFormat(locale, { timeZone: 'UTC', hour: 'numeric' }),
    };
    if (extras.size >= 200) extras.clear();
    extras.set(key, found);
  }
  return found;
}

const minorDigits = new Map<string, number>();

/** An amount in minor units (cents), in major units as the locale writes money. */
function money(format: Formatter, amount: { amount: number; currency: string }): string {
  let digits = minorDigits.get(amount.currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: amount.currency }).resolvedOptions().maximumFractionDigits ?? 2;
    minorDigits.set(amount.currency, digits);
  }
  return format.money(amount.amount / 10 ** digits, amount.currency);
}

/** `45 s`, `2 min 31 s`, `1,204 h 7 min` (hours grouped as the locale groups digits), or a dash when there is nothing to average. */
export function duration(seconds: number | null | undefined, format?: Formatter): string {
  if (seconds === null || seconds === undefined) return '—';
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  if (minutes >= 60) {
    const hours = Math.floor(minutes / 60);
    return `${format ? format.number(hours) : hours} h ${minutes % 60} min`;
  }
  return minutes > 0 ? `${minutes} min ${whole % 60} s` : `${whole} s`;
}

/** How a figure moved since the previous period, in words (no colour: more calls or more cost is neither good nor bad here). */
export function change(current: number, previous: number | undefined, versus: string, unit: 'percent' | 'points' = 'percent'): string {
  if (previous === undefined) return '';
  if (unit === 'points') {
    const points = Math.round((current - previous) * 100);
    if (points === 0) return `Same as ${versus}.`;
    return `${points > 0 ? 'Up' : 'Down'} ${Math.abs(points)} point${Math.abs(points) === 1 ? '' : 's'} on ${versus}.`;
  }
  if (previous === 0) return current === 0 ? `None ${versus} either.` : `None ${versus}.`;
  const percent = Math.round(((current - previous) / previous) * 100);
  if (percent === 0) return `About the same as ${versus}.`;
  return `${percent > 0 ? 'Up' : 'Down'} ${Math.abs(percent)}% on ${versus}.`;
}

const link = (href: string | undefined, text: Renderable) => (href ? html`<a href="${href}">${text}</a>` : html`${text}`);

/** A lead figure or name: a link once the leads pages exist (list-links.ts `leadsHref`), text until then. */
const leadLink = (target: LeadsTarget, text: Renderable) => link(leadsHref(target), text);

function figures(signedIn: SignedIn, data: OverviewData): Html {
  const format = formatFor(signedIn);
  const { percent } = extraFormats(format);
  const count = (value: number) => format.number(value);
  const days = data.bounds.days;
  const versus = periodLabels[data.bounds.period].versus;
  const calls = (filters: CallsFilters = {}) => callsListHref({ ...filters, ...days });
  const now = data.calls?.current;
  const before = data.calls?.previous;
  const cards: Html[] = [];
  if (now) {
    const rang = now.calls.by_status;
    const rangOut = rang.in_progress + rang.completed + rang.failed + rang.no_answer + rang.busy;
    cards.push(
      card({
        id: 'overview-calls',
        label: 'Calls',
        figure: count(now.calls.total),
        detail: html`<span class="card-links"><a href="${calls({ direction: 'inbound' })}">${count(now.calls.by_direction.inbound)} inbound</a> <a href="${calls({ direction: 'outbound' })}">${count(now.calls.by_direction.outbound)} outbound</a></span>
          <span class="change">${change(now.calls.total, before?.calls.total, versus)}</span>`,
        href: calls(),
        linkText: 'All calls of the period',
      }),
      card({
        id: 'overview-answer-rate',
        label: 'Answer rate',
        figure: now.calls.answer_rate === null ? '—' : percent.format(now.calls.answer_rate),
        detail: html`${count(now.calls.answered)} answered of ${count(rangOut)} that rang out.
          <span class="change">${now.calls.answer_rate === null || before?.calls.answer_rate === null || before?.calls.answer_rate === undefined ? '' : change(now.calls.answer_rate, before.calls.answer_rate, versus, 'points')}</span>`,
        href: calls({ status: 'completed' }),
        linkText: 'Completed calls',
      }),
      card({
        id: 'overview-duration',
        label: 'Average answered call',
        figure: duration(now.calls.average_duration_seconds),
        detail: html`${duration(now.calls.total_duration_seconds, format)} on the phone in all.`,
        href: calls({ status: 'completed' }),
        linkText: 'Completed calls',
      }),
    );
  }
  const leads = data.leads;
  cards.push(
    card({
      id: 'overview-qualified',
      label: 'Qualified leads',
      figure: leads ? leadLink({ leads: 'qualified', days }, count(leads.current.qualified)) : '—',
      detail: leads
        ? html`${leadLink({ leads: 'created', days }, `${count(leads.current.created)} new lead${leads.current.created === 1 ? '' : 's'}`)}.
            <span class="change">${change(leads.current.qualified, leads.previous?.qualified, versus)}</span>`
        : 'Leads could not be read just now.',
    }),
  );
  if (now) {
    const messages = now.sms;
    cards.push(
      card({
        id: 'overview-sms',
        label: 'Messages sent',
        figure: count(messages.sent),
        detail: html`<span class="card-links"><a href="${messagesListHref({ direction: 'outbound', status: 'delivered', ...days })}">${count(messages.delivered)} delivered</a>${
          messages.delivery_rate === null ? '' : html` <span>(${percent.format(messages.delivery_rate)})</span>`
        } <a href="${messagesListHref({ direction: 'inbound', ...days })}">${count(messages.by_direction.inbound)} received</a></span>
          <span class="change">${change(messages.sent, before?.sms.sent, versus)}</span>`,
        href: messagesListHref({ direction: 'outbound', ...days }),
        linkText: 'Messages sent in the period',
      }),
      card({
        id: 'overview-cost',
        label: 'Cost',
        figure: money(format, now.cost),
        detail: html`<span class="card-links"><a href="${calls()}">Calls ${money(format, now.calls.cost)}</a> <a href="${messagesListHref({ direction: 'outbound', ...days })}">Messages ${money(format, now.sms.cost)}</a></span>
          <span class="change">${change(now.cost.amount, before?.cost.amount, versus)}</span>`,
      }),
    );
  }
  cards.push(
    card({
      id: 'overview-approvals',
      label: 'Approvals waiting',
      figure: data.pendingApprovals === undefined ? '—' : count(data.pendingApprovals),
      detail:
        data.pendingApprovals === undefined
          ? 'The approvals could not be counted just now.'
          : 'Actions of AI agents waiting for a person to approve them.',
      href: approvalsListHref({ status: 'pending' }),
      linkText: 'Pending approvals',
    }),
  );
  return html`<div class="cards">${cards}</div>`;
}

// ---------------------------------------------------------------------------------------------------------
// Charts: SVG drawn here, the same figures in a table beside them

const plot = { width: 720, height: 200 };

interface Slot {
  bucket: OverviewBucket;
  /** The bucket's calendar day in the person's time zone (its calls list). */
  day: string;
  label: string;
}

function slots(format: Formatter, bounds: OverviewBounds, series: OverviewBucket[]): Slot[] {
  const { shortDay, hour } = extraFormats(format);
  return series.map((bucket) => {
    const day = dayIn(bounds.timeZone, new Date(bucket.start));
    return {
      bucket,
      day,
      label: bounds.interval === 'hour' ? hour.format(new Date(bucket.start)) : shortDay.format(new Date(`${day}T00:00:00Z`)),
    };
  });
}

/**
 * Calls per hour (today) or per day, stacked by direction: bars in a viewBox stretched to the box (no text
 * inside the drawing, so nothing shrinks on a phone), the scale and the first and last labels in HTML beside
 * it. `role="img"` with a title and a summary; every figure is in the table that follows.
 */
function callsChart(format: Formatter, data: OverviewData, overview: Overview): Html {
  const bounds = data.bounds;
  const series = slots(format, bounds, overview.series ?? []);
  const hourly = bounds.interval === 'hour';
  // Today keeps room for all of its hours, so the bars do not widen as the day goes on.
  const slotCount = Math.max(series.length, hourly ? 24 : series.length, 1);
  const peak = Math.max(1, ...series.map((slot) => slot.bucket.calls.total));
  const slotWidth = plot.width / slotCount;
  const gap = Math.min(4, slotWidth * 0.2);
  const scale = (value: number) => (value / peak) * (plot.height - 2);
  const bars = series.map((slot, index) => {
    const x = index * slotWidth + gap / 2;
    const width = Math.max(1, slotWidth - gap);
    const { inbound, outbound } = slot.bucket.calls.by_direction;
    const outboundHeight = scale(outbound);
    const inboundHeight = scale(inbound);
    const base = plot.height;
    const rect = (kind: 'inbound' | 'outbound', y: number, height: number, value: number) =>
      value === 0
        ? ''
        : html`<rect class="chart-bar ${kind}" x="${x.toFixed(2)}" y="${y.toFixed(2)}" width="${width.toFixed(2)}" height="${height.toFixed(2)}"><title>${slot.label}: ${format.number(value)} ${kind}</title></rect>`;
    return html`${rect('outbound', base - outboundHeight, outboundHeight, outbound)}${rect('inbound', base - outboundHeight - inboundHeight, inboundHeight, inbound)}`;
  });
  const step = hourly ? 'hour' : 'day';
  const first = series[0]?.label ?? '';
  const last = series.at(-1)?.label ?? '';
  const busiest = series.reduce((max, slot) => Math.max(max, slot.bucket.calls.total), 0);
  const title = `Calls per ${step} by direction, ${first} to ${last}`;
  const summary = `${format.number(overview.calls.total)} calls: ${format.number(overview.calls.by_direction.inbound)} inbound, ${format.number(overview.calls.by_direction.outbound)} outbound; at most ${format.number(busiest)} in one ${step}. The table below gives every figure.`;
  const table = dataTable({
    id: 'overview-calls-table',
    caption: `Calls per ${step}`,
    head: html`<th scope="col">${hourly ? 'Hour' : 'Day'}</th><th scope="col" class="num">Inbound</th><th scope="col" class="num">Outbound</th><th scope="col" class="num">Calls</th>`,
    rows: series.map((slot) => {
      const { inbound, outbound } = slot.bucket.calls.by_direction;
      const byDay = (filters: CallsFilters, value: number) =>
        hourly ? format.number(value) : link(callsListHref({ ...filters, ...oneDay(slot.day) }), format.number(value));
      return html`<tr><th scope="row">${hourly ? slot.label : format.day(slot.day)}</th><td class="num">${byDay({ direction: 'inbound' }, inbound)}</td><td class="num">${byDay({ direction: 'outbound' }, outbound)}</td><td class="num">${byDay({}, slot.bucket.calls.total)}</td></tr>`;
    }),
  });
  return html`<figure class="chart">
    <div class="chart-plot">
      <p class="chart-scale" aria-hidden="true"><span>${format.number(peak)}</span><span>0</span></p>
      <svg class="chart-svg" viewBox="0 0 ${plot.width} ${plot.height}" preserveAspectRatio="none" role="img" aria-labelledby="overview-chart-title overview-chart-desc" xmlns="http://www.w3.org/2000/svg">
        <title id="overview-chart-title">${title}</title>
        <desc id="overview-chart-desc">${summary}</desc>
        <line class="chart-grid" x1="0" y1="1" x2="${plot.width}" y2="1"></line>
        <line class="chart-grid" x1="0" y1="${plot.height / 2}" x2="${plot.width}" y2="${plot.height / 2}"></line>
        <line class="chart-base" x1="0" y1="${plot.height}" x2="${plot.width}" y2="${plot.height}"></line>
        ${bars}
      </svg>
      ${
        hourly
          ? html`<p class="chart-axis hours" aria-hidden="true">${[0, 6, 12, 18].map((hour) => html`<span>${extraFormats(format).clockHour.format(Date.UTC(2026, 0, 1, hour))}</span>`)}</p>`
          : html`<p class="chart-axis" aria-hidden="true"><span>${first}</span><span>${last}</span></p>`
      }
    </div>
    <figcaption>
      <ul class="legend" aria-label="Colours of the chart">
        <li><svg class="swatch" viewBox="0 0 12 12" aria-hidden="true"><rect class="chart-bar outbound" width="12" height="12"></rect></svg> Outbound</li>
        <li><svg class="swatch" viewBox="0 0 12 12" aria-hidden="true"><rect class="chart-bar inbound" width="12" height="12"></rect></svg> Inbound</li>
      </ul>
    </figcaption>
  </figure>
  <details class="disclosure">
    <summary>The calls per ${step} as a table</summary>
    ${table}
  </details>`;
}

/** Calls by outcome: one row each, its count linked to the calls of that outcome, its share drawn as a bar. */
function outcomeBreakdown(format: Formatter, days: DayRange, overview: Overview): Html {
  const { percent } = extraFormats(format);
  const total = overview.calls.total;
  const rows = [...callOutcomes, 'none' as const].map((outcome) => {
    const calls = overview.calls.by_outcome[outcome];
    const share = total === 0 ? 0 : calls / total;
    // Calls without an outcome have no filter of their own in the calls list.
    const figure = outcome === 'none' ? format.number(calls) : link(callsListHref({ outcome, ...days }), format.number(calls));
    return html`<tr><th scope="row">${outcomeLabels[outcome]}</th><td class="num">${figure}</td><td><span class="share"><svg class="share-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="share-track" width="100" height="8"></rect><rect class="share-fill ${outcomeTones[outcome]}" width="${(share * 100).toFixed(2)}" height="8"></rect></svg><span>${percent.format(share)}</span></span></td></tr>`;
  });
  return dataTable({
    id: 'overview-outcomes',
    caption: 'Calls by outcome',
    captionHidden: true,
    head: html`<th scope="col">Outcome</th><th scope="col" class="num">Calls</th><th scope="col">Share of the calls</th>`,
    rows,
  });
}

// ---------------------------------------------------------------------------------------------------------
// The latest calls and leads

function latestCallsTable(format: Formatter, calls: CallListItem[]): Html {
  return dataTable({
    id: 'overview-latest-calls-table',
    caption: 'The newest calls',
    captionHidden: true,
    head: html`<th scope="col">Created</th><th scope="col">Direction</th><th scope="col">Number</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col" class="num">Duration</th>`,
    rows: calls.map(
      (call) =>
        html`<tr><td><a href="${callHref(call.id)}">${time(format, call.created_at)}</a></td><td>${call.direction}</td><td class="nowrap">${format.phone(call.direction === 'outbound' ? call.to : call.from)}</td><td>${badge(call.status)}</td><td>${call.outcome ? outcomeLabels[call.outcome] : '—'}</td><td class="num">${duration(call.duration_seconds)}</td></tr>`,
    ),
  });
}

function latestLeadsTable(format: Formatter, leads: Lead[]): Html {
  return dataTable({
    id: 'overview-latest-leads-table',
    caption: 'The newest leads',
    captionHidden: true,
    head: html`<th scope="col">Lead</th><th scope="col">Company</th><th scope="col">Status</th><th scope="col">Created</th>`,
    rows: leads.map(
      (lead) =>
        html`<tr><td>${leadLink({ lead: lead.id }, lead.name ?? lead.email ?? (lead.phone ? format.phone(lead.phone) : lead.id))}</td><td>${lead.company ?? '—'}</td><td>${badge(lead.status)}</td><td>${time(format, lead.created_at)}</td></tr>`,
    ),
  });
}

/** A new organization: nothing to chart yet, and what to do about it. */
const noCallsYet = () =>
  emptyState({
    id: 'overview-empty',
    title: 'No calls yet.',
    next: html`<a href="${newCallHref}">Queue one</a>, or connect an AI agent: give it an <a href="/dashboard/settings/api">API key</a>, or let it sign in through <a href="/dashboard/settings/connected-apps">Connected apps</a>.`,
  });

const unavailable = (what: string) => notice('info', `${what} could not be read just now. Reload the page in a moment.`);

// ---------------------------------------------------------------------------------------------------------
// The page

function periodControl(current: OverviewPeriod): Html {
  return html`<nav class="segmented" aria-label="Period">${(Object.keys(periodLabels) as OverviewPeriod[]).map(
    (period) =>
      html`<a id="overview-period-${period}" href="${overviewHref(period)}"${period === current ? html` aria-current="page"` : ''}>${periodLabels[period].tab}</a>`,
  )}</nav>`;
}

/**
 * The organization's overview for a period: figures (cards, each linking to the list it counts), calls per
 * hour or day and by outcome, approvals waiting, the newest calls and leads. Its regions follow the platform's
 * events (static/live.js): the figures on calls, messages, approvals and leads; the charts and the newest
 * calls on calls; the newest leads on leads.
 */
export function overviewPage(signedIn: SignedIn, data: OverviewData) {
  const format = formatFor(signedIn);
  const { period, days, timeZone } = data.bounds;
  const overview = data.calls?.current;
  const noCalls = data.latestCalls !== undefined && data.latestCalls.length === 0 && (overview?.calls.total ?? 0) === 0;
  const step = data.bounds.interval === 'hour' ? 'hour' : 'day';
  const charts = !overview
    ? html`<p class="muted">The charts show once the calls can be read.</p>`
    : noCalls
      ? noCallsYet()
      : html`${callsChart(format, data, overview)}
        <h3 id="overview-outcomes-heading">By outcome</h3>
        ${outcomeBreakdown(format, days, overview)}`;
  const latestCalls =
    data.latestCalls === undefined
      ? unavailable('The newest calls')
      : data.latestCalls.length === 0
        ? html`<p class="muted">None yet.</p>`
        : html`${latestCallsTable(format, data.latestCalls)}<p><a href="${callsListHref()}">All calls</a></p>`;
  const latestLeads =
    data.latestLeads === undefined
      ? unavailable('The newest leads')
      : data.latestLeads.length === 0
        ? html`<p class="muted">None yet. Leads your agents and calls create show here.</p>`
        : latestLeadsTable(format, data.latestLeads);
  return page({
    title: period === defaultPeriod ? 'Overview' : `Overview, ${periodLabels[period].tab.toLowerCase()}`,
    signedIn,
    path: overviewPath,
    live: true,
    body: html`${pageHeader({
      title: `Organization ${organizationLabel(signedIn)}`,
      lead: html`${periodLabels[period].lead}, in your time zone (${timeZone}; <a href="${preferencesPath}">change it</a>). Signed in as ${signedIn.user.name}, ${signedIn.role} of this organization.`,
      actions: periodControl(period),
    })}
      ${overview ? '' : unavailable('Calls and messages')}
      <section aria-labelledby="overview-figures-heading">
        <h2 id="overview-figures-heading" class="visually-hidden">Figures</h2>
        <div id="overview-figures" data-live="call sms approval lead" data-live-label="Figures">${figures(signedIn, data)}</div>
      </section>
      <section aria-labelledby="overview-activity-heading">
        <h2 id="overview-activity-heading">Calls per ${step}</h2>
        <div id="overview-charts" data-live="call" data-live-label="Charts">${charts}</div>
      </section>
      <section aria-labelledby="overview-latest-calls-heading">
        <h2 id="overview-latest-calls-heading">Latest calls</h2>
        <div id="overview-latest-calls" data-live="call" data-live-label="Latest calls">${latestCalls}</div>
      </section>
      <section aria-labelledby="overview-latest-leads-heading">
        <h2 id="overview-latest-leads-heading">Latest leads</h2>
        <div id="overview-latest-leads" data-live="lead" data-live-label="Latest leads">${latestLeads}</div>
      </section>`,
  });
}
