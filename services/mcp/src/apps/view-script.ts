// The script every View shares: building elements from data (text nodes only, never markup from data), the
// console's badges and formats, and `startView`, which connects to the host with the ext-apps App and
// renders the tool's structuredContent when the result arrives. Plain browser JavaScript, inlined after the
// SDK (sdk.ts), so it names the SDK's exports through that global.
import { sdkGlobal } from './sdk.js';

export const sharedViewScript = `
const { App, applyDocumentTheme, applyHostStyleVariables, applyHostFonts } = ${sdkGlobal};
const view = document.getElementById('view');
/** The host's locale and time zone (its context), else the browser's. */
let locale;
let timeZone;

/** An element with attributes (none when null, undefined or false) and children (text as text nodes). */
function h(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false || child === '') continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** The console's tone of each status (services/console/src/views/components.ts), one look everywhere. */
const tones = {
  queued: 'neutral', ringing: 'info', in_progress: 'info', completed: 'success', failed: 'danger', canceled: 'neutral',
  no_answer: 'neutral', busy: 'neutral', qualified_lead: 'success', booked: 'success', message_taken: 'info',
  not_interested: 'neutral', voicemail: 'neutral', wrong_number: 'warning', spam: 'warning',
  draft: 'neutral', sent: 'info', paid: 'success', void: 'neutral',
  new: 'info', contacted: 'info', qualified: 'success', unqualified: 'neutral', won: 'success', lost: 'danger',
  active: 'success', stopped: 'neutral',
  invisible: 'danger', faint: 'warning', emerging: 'info', known: 'success', prominent: 'success',
  critical: 'danger', high: 'warning', medium: 'info', low: 'neutral', ok: 'success', partial: 'warning',
};
const words = (value) => String(value).replaceAll('_', ' ');
const badge = (status, text) => h('span', { class: 'badge ' + (tones[status] || 'neutral') }, text || words(status));
const testBadge = () => h('span', { class: 'badge warning' }, 'Test');
const muted = (text) => h('p', { class: 'muted' }, text);
const code = (text) => (text ? h('code', {}, text) : null);

/** Minor units in the currency's own number of decimals (JPY none, USD two). */
function money(amount, currency) {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    return format.format(amount / 10 ** format.resolvedOptions().maximumFractionDigits);
  } catch {
    return amount + ' ' + currency + ' (minor units)';
  }
}
function dateTime(value) {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return h('time', { datetime: value }, new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date));
}
/** A calendar date (YYYY-MM-DD) is the same day everywhere: formatted in UTC, where it was written. */
function calendarDate(value) {
  if (!value) return null;
  const date = new Date(value + 'T00:00:00Z');
  if (Number.isNaN(date.getTime())) return value;
  return h('time', { datetime: value }, new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(date));
}
function duration(seconds) {
  if (seconds === null || seconds === undefined) return null;
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? minutes + ' min ' + (seconds % 60) + ' s' : seconds + ' s';
}

/** A details list of [label, value] pairs; pairs without a value are left out rather than shown empty. */
function details(label, pairs) {
  const rows = pairs.filter(([, value]) => value !== null && value !== undefined && value !== '' && value !== false);
  return h('dl', { 'aria-label': label }, rows.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

/**
 * Bordered items in order (transcript turns, notes, recommendations): item(entry) gives the head line, the
 * body text, a kind (a class, e.g. the speaker) and the head's tag when it is a heading.
 */
function items(entries, item) {
  return h(
    'ol',
    { class: 'items' },
    entries.map((entry) => {
      const { head, body, kind, headTag } = item(entry);
      return h('li', { class: kind ? 'item ' + kind : 'item' }, h(headTag || 'p', { class: 'item-head' }, head), h('p', { class: 'item-body' }, body));
    }),
  );
}

let sections = 0;
/** A section named by its heading, so it is a region a screen reader lists. */
function section(title, ...children) {
  sections += 1;
  const id = 'section-' + sections;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), children);
}

/**
 * A table that scrolls inside its own box (a 375 px screen never scrolls sideways); the box is focusable and
 * named, so a keyboard can scroll it. Columns are [heading, numeric]; rows hold cells' contents; foot rows
 * are [label, value] pairs under the numeric last column.
 */
function table(caption, columns, rows, foot) {
  const cell = (tag, numeric, content, extra) => h(tag, Object.assign({ class: numeric ? 'num' : null }, extra), content);
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: '0' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, columns.map(([heading, numeric]) => cell('th', numeric, heading, { scope: 'col' })))),
      h('tbody', {}, rows.map((row) => h('tr', {}, row.map((content, index) => cell('td', columns[index][1], content))))),
      foot
        ? h('tfoot', {}, foot.map(([label, value]) => h('tr', {}, cell('th', true, label, { scope: 'row', colspan: columns.length - 1 }), cell('td', true, value))))
        : null,
    ),
  );
}

/** Calls as the console lists them; the list App and a lead's recent calls share it. */
function callsTable(caption, calls) {
  return table(
    caption,
    [['Call'], ['From, to'], ['Status'], ['Outcome'], ['Duration', true], ['Cost', true]],
    calls.map((call) => [
      [code(call.id), h('br'), dateTime(call.created_at)],
      [words(call.direction) + ': ' + call.from + ' to ' + call.to],
      [badge(call.status), call.livemode === false ? [' ', testBadge()] : null],
      call.outcome ? badge(call.outcome) : '',
      duration(call.duration_seconds) || '',
      call.cost ? money(call.cost.amount, call.cost.currency) : '',
    ]),
  );
}

function showProblem(title, text) {
  view.replaceChildren(h('h1', {}, title), h('p', {}, text));
  view.removeAttribute('aria-busy');
}

/**
 * Connects to the host and renders each tool result with render(structuredContent, app). Handlers are set
 * before connecting, as the SDK asks, so the result is never missed. An error result is shown as the
 * tool's text (what went wrong, what to do), which is also what a client without Apps reads.
 */
function startView(name, render) {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  const applyContext = () => {
    const context = app.getHostContext() || {};
    if (context.theme) applyDocumentTheme(context.theme);
    if (context.styles && context.styles.variables) applyHostStyleVariables(context.styles.variables);
    if (context.styles && context.styles.css && context.styles.css.fonts) applyHostFonts(context.styles.css.fonts);
    if (context.locale) locale = context.locale;
    if (context.timeZone) timeZone = context.timeZone;
  };
  app.addEventListener('hostcontextchanged', applyContext);
  app.addEventListener('toolresult', (result) => {
    const text = (result.content || []).filter((block) => block.type === 'text').map((block) => block.text).join('\\n');
    if (result.isError) return showProblem('The tool did not succeed', text);
    if (!result.structuredContent) return showProblem('Nothing to show', text || 'The result holds no data.');
    view.replaceChildren();
    sections = 0;
    render(result.structuredContent, app);
    view.removeAttribute('aria-busy');
  });
  app.connect().then(applyContext, (error) => showProblem('Not connected to the host', String(error && error.message)));
}
`;
