import type { UsageHistory } from '@voice/proto';
import type { SignedIn } from '../domain/sessions.js';
import { card, dataTable, formatFor, pageHeader } from './components.js';
import { html } from './html.js';
import { page } from './layout.js';

export const usagePath = '/dashboard/usage';

/** Colours told apart by most forms of colour blindness (Okabe–Ito); keys beyond them share the last. */
const palette = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#999999'];

export interface UsageView {
  history: UsageHistory;
  today: string;
}

/** Every day of the period, oldest first, with each key's count and the total. */
export function usageDays(view: UsageView) {
  const byDay = new Map<string, Map<string, number>>();
  for (const row of view.history.days) {
    const day = byDay.get(row.date) ?? new Map<string, number>();
    day.set(row.key_id, (day.get(row.key_id) ?? 0) + row.count);
    byDay.set(row.date, day);
  }
  const days: { date: string; perKey: Map<string, number>; total: number }[] = [];
  for (let time = Date.parse(`${view.history.from}T00:00:00Z`); time <= Date.parse(`${view.today}T00:00:00Z`); time += 86_400_000) {
    const date = new Date(time).toISOString().slice(0, 10);
    const perKey = byDay.get(date) ?? new Map<string, number>();
    days.push({ date, perKey, total: [...perKey.values()].reduce((sum, count) => sum + count, 0) });
  }
  return days;
}

/** Keys with calls in the period, in the order of the keys list (ids of deleted keys last). */
function keysInPeriod(view: UsageView) {
  const called = new Set(view.history.days.map((row) => row.key_id));
  const names = new Map(view.history.keys.map((key) => [key.id, key.name || key.id]));
  const ordered = [...view.history.keys.map((key) => key.id).filter((id) => called.has(id)), ...[...called].filter((id) => !names.has(id))];
  return ordered.map((id, index) => ({ id, name: names.get(id) ?? id, colour: palette[Math.min(index, palette.length - 1)] as string }));
}

const width = 720;
const height = 240;
const margin = { left: 56, bottom: 28, top: 12 };

/** Stacked bars per day, one colour per key; the table below holds the same figures for screen readers. */
function chart(days: ReturnType<typeof usageDays>, keys: ReturnType<typeof keysInPeriod>) {
  const peak = Math.max(1, ...days.map((day) => day.total));
  const plotHeight = height - margin.top - margin.bottom;
  const slot = (width - margin.left) / days.length;
  const total = days.reduce((sum, day) => sum + day.total, 0);
  const bars = days.map((day, index) => {
    let top = height - margin.bottom;
    return keys.map((key) => {
      const count = day.perKey.get(key.id) ?? 0;
      if (count === 0) return '';
      const barHeight = (count / peak) * plotHeight;
      top -= barHeight;
      return html`<rect x="${(margin.left + index * slot + 1).toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, slot - 2).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${key.colour}"><title>${day.date}, ${key.name}: ${count}</title></rect>`;
    });
  });
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  return html`<svg class="usage-chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="usage-chart-title usage-chart-desc" xmlns="http://www.w3.org/2000/svg">
    <title id="usage-chart-title">API calls per day, ${first} to ${last}</title>
    <desc id="usage-chart-desc">${total} calls in ${days.length} days, at most ${days.reduce((max, day) => Math.max(max, day.total), 0)} in one day, stacked by key. The table below gives every figure.</desc>
    <line x1="${margin.left}" y1="${height - margin.bottom}" x2="${width}" y2="${height - margin.bottom}" stroke="#333"></line>
    <text x="${margin.left - 6}" y="${margin.top + 4}" text-anchor="end" font-size="12">${peak}</text>
    <text x="${margin.left - 6}" y="${height - margin.bottom}" text-anchor="end" font-size="12">0</text>
    <text x="${margin.left}" y="${height - 8}" font-size="12">${first}</text>
    <text x="${width}" y="${height - 8}" text-anchor="end" font-size="12">${last}</text>
    ${bars}
  </svg>`;
}

function legend(keys: ReturnType<typeof keysInPeriod>) {
  if (keys.length === 0)
    return html`<p>No API calls in the last 30 days. Calls made with any of the organization's <a href="/dashboard/settings/api">keys</a> show here within a minute.</p>`;
  return html`<ul class="legend" aria-label="Keys in the chart">
    ${keys.map((key) => html`<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${key.colour}"></rect></svg> ${key.name}</li>`)}
  </ul>`;
}

function figuresTable(days: ReturnType<typeof usageDays>, keys: ReturnType<typeof keysInPeriod>) {
  // Plain digits in the cells: the table is the chart's figures, read by people and by the browser tests alike.
  return html`<details class="disclosure">
    <summary>The figures as a table</summary>
    ${dataTable({
      id: 'usage-table',
      caption: 'API calls per day and key',
      head: html`<th scope="col">Day (UTC)</th>${keys.map((key) => html`<th scope="col">${key.name}</th>`)}<th scope="col">Total</th>`,
      rows: [...days]
        .reverse()
        .map(
          (day) =>
            html`<tr><th scope="row">${day.date}</th>${keys.map((key) => html`<td>${day.perKey.get(key.id) ?? 0}</td>`)}<td>${day.total}</td></tr>`,
        ),
    })}
  </details>`;
}

export function usagePage(signedIn: SignedIn, view: UsageView) {
  const days = usageDays(view);
  const keys = keysInPeriod(view);
  const { used, limit } = view.history.today;
  const format = formatFor(signedIn);
  const count = (value: number) => format.number(value);
  const periodTotal = days.reduce((sum, day) => sum + day.total, 0);
  return page({
    title: 'Usage',
    signedIn,
    path: usagePath,
    body: html`${pageHeader({ title: 'Usage', lead: "API calls made with the organization's keys, counted per UTC day." })}
      <div class="cards">
        <section aria-labelledby="today-heading" class="card">
          <h2 id="today-heading" class="card-label">Today</h2>
          <p class="card-figure">${count(used)}</p>
          <p id="usage-today">${count(used)} ${limit === null ? 'calls today; the plan has no daily limit.' : html`of ${count(limit)} calls allowed today by the plan.`}</p>
          ${limit === null ? '' : html`<meter min="0" max="${limit}" value="${Math.min(used, limit)}" aria-labelledby="today-heading usage-today"></meter>`}
        </section>
        ${card({ label: 'The last 30 days', figure: count(periodTotal), detail: `calls, by ${count(keys.length)} key${keys.length === 1 ? '' : 's'}` })}
        ${card({ label: 'Keys', figure: count(view.history.keys.length), detail: 'in the organization', href: '/dashboard/settings/api', linkText: 'Keys and their quotas' })}
      </div>
      <section aria-labelledby="days-heading">
        <h2 id="days-heading">The last 30 days</h2>
        ${chart(days, keys)}
        ${legend(keys)}
        ${figuresTable(days, keys)}
      </section>
      <section aria-labelledby="month-heading">
        <h2 id="month-heading">This month, per key</h2>
        ${dataTable({
          id: 'usage-keys',
          caption: 'Each key this month',
          captionHidden: true,
          head: html`<th scope="col">Key</th><th scope="col">Status</th><th scope="col">Used this month</th><th scope="col">Monthly quota</th>`,
          rows: view.history.keys.map(
            (key) =>
              html`<tr><td>${key.name || key.id}</td><td>${key.status}</td><td>${count(key.monthly_used)}</td><td>${count(key.monthly_quota)}</td></tr>`,
          ),
        })}
      </section>`,
  });
}
