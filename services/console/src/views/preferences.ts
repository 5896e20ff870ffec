import type { SignedIn } from '../domain/sessions.js';
import { field, formatFor, pageHeader } from './components.js';
import { timeZones } from './format.js';
import { html } from './html.js';
import { csrfField, page, preferencesPath } from './layout.js';

/** The zones grouped by region (`Europe/…`, `America/…`), so the long list reads like a map. */
function zoneOptions(current: string) {
  const groups = new Map<string, string[]>();
  for (const zone of timeZones) {
    const region = zone.includes('/') ? (zone.split('/')[0] as string) : 'Other';
    groups.set(region, [...(groups.get(region) ?? []), zone]);
  }
  const option = (zone: string) =>
    html`<option value="${zone}" ${zone === current ? html`selected` : ''}>${zone.replaceAll('_', ' ')}</option>`;
  return [...groups].map(([region, zones]) => html`<optgroup label="${region}">${zones.map(option)}</optgroup>`);
}

/** Stands for every kind of figure the pages show, in the person's format, so they see what a choice does. */
const sample = { moment: new Date('2026-03-14T15:09:00Z'), count: 1_234_567, amount: 1234.5, phone: '+14155552671' };

export function preferencesPage(signedIn: SignedIn, options: { error?: string; timeZone?: string } = {}) {
  const format = formatFor(signedIn);
  const chosen = options.timeZone ?? signedIn.user.timeZone;
  return page({
    title: 'Preferences',
    signedIn,
    path: preferencesPath,
    body: html`${pageHeader({ title: 'Preferences', lead: 'How the console writes times and figures for you, and your sessions. Only you see these settings.' })}
      <section aria-labelledby="time-heading" class="panel">
        <h2 id="time-heading">Time zone</h2>
        <form method="post" action="${preferencesPath}" class="stack">
          ${csrfField(signedIn.csrfToken)}
          ${field({
            id: 'time-zone',
            name: 'time_zone',
            label: 'Show times in',
            hint: "Browsers do not tell websites their time zone, so the console asks. The overview's days are yours; the audit log's and usage's stay UTC days, as the API's.",
            error: options.error,
            control: (describedBy, invalid) =>
              html`<select id="time-zone" name="time_zone"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${zoneOptions(chosen)}</select>`,
          })}
          <button type="submit" id="preferences-save">Save</button>
        </form>
      </section>
      <section aria-labelledby="format-heading" class="panel">
        <h2 id="format-heading">Language and number format</h2>
        <p>From your browser's language setting: <strong id="preferences-locale">${format.audience.locale}</strong>. Change it in your browser to change these.</p>
        <dl>
          <dt>A time</dt><dd>${format.dateTime(sample.moment)}</dd>
          <dt>A number</dt><dd>${format.number(sample.count)}</dd>
          <dt>An amount</dt><dd>${format.money(sample.amount, 'USD')}</dd>
          <dt>A phone number</dt><dd>${format.phone(sample.phone)}</dd>
        </dl>
      </section>
      <section aria-labelledby="sessions-heading" class="panel">
        <h2 id="sessions-heading">Sessions</h2>
        <p>Signed in on another device you no longer use? End every session, this one included.</p>
        <form method="post" action="/dashboard/sign-out-everywhere">
          ${csrfField(signedIn.csrfToken)}
          <button type="submit" id="sign-out-everywhere">Sign out everywhere</button>
        </form>
      </section>`,
  });
}
