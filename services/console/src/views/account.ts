import type { SessionView } from '../domain/account.js';
import { organizationLabel } from '../domain/organizations.js';
import type { SignedIn } from '../domain/sessions.js';
import { csrfField, dataTable, type FieldErrors, field, formatFor, pageHeader, time } from './components.js';
import { type Html, html } from './html.js';
import { page, preferencesPath } from './layout.js';
import { newPasswordFields } from './password-reset.js';

export const accountPath = '/dashboard/settings/account';

/** A User-Agent as people say it ("Firefox on macOS"); the whole string stays in the cell's title. */
export function deviceName(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser =
    [
      ['Edg/', 'Edge'],
      ['OPR/', 'Opera'],
      ['Firefox/', 'Firefox'],
      ['Chrome/', 'Chrome'],
      ['Safari/', 'Safari'],
      ['curl/', 'curl'],
    ].find(([marker]) => userAgent.includes(marker as string))?.[1] ?? 'A browser';
  const system =
    [
      ['Android', 'Android'],
      ['iPhone', 'iOS'],
      ['iPad', 'iPadOS'],
      ['Mac OS X', 'macOS'],
      ['Windows', 'Windows'],
      ['CrOS', 'ChromeOS'],
      ['Linux', 'Linux'],
    ].find(([marker]) => userAgent.includes(marker as string))?.[1] ?? undefined;
  return system ? `${browser} on ${system}` : browser;
}

function sessionsTable(signedIn: SignedIn, sessions: SessionView[]): Html {
  const format = formatFor(signedIn);
  return dataTable({
    id: 'sessions',
    caption: 'Your sessions',
    captionHidden: true,
    head: html`<th scope="col">Device</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col"><span class="visually-hidden">Action</span></th>`,
    rows: sessions.map(
      (session) => html`<tr>
        <td><span title="${session.userAgent ?? ''}">${deviceName(session.userAgent)}</span></td>
        <td>${session.clientAddress ?? '—'}</td>
        <td>${time(format, session.createdAt)}</td>
        <td>${time(format, session.lastSeenAt)}</td>
        <td>${
          session.current
            ? html`<span class="badge success">This session</span>`
            : html`<form method="post" action="${accountPath}/sessions/${session.id}/sign-out">
                ${csrfField(signedIn.csrfToken)}
                <button type="submit" class="quiet" aria-label="Sign out ${deviceName(session.userAgent)}, last seen ${format.dateTime(session.lastSeenAt)}">Sign out</button>
              </form>`
        }</td>
      </tr>`,
    ),
  });
}

export function accountPage(
  signedIn: SignedIn,
  sessions: SessionView[],
  options: { minLength: number; errors?: FieldErrors; name?: string; organizationName?: string },
): Html {
  const errors = options.errors ?? {};
  const format = formatFor(signedIn);
  return page({
    title: 'Account',
    signedIn,
    path: accountPath,
    body: html`${pageHeader({ title: 'Account', lead: 'Your name, your password and where you are signed in. Only you see this page.' })}
      <section aria-labelledby="profile-heading" class="panel">
        <h2 id="profile-heading">Profile</h2>
        <form method="post" action="${accountPath}/name" class="stack">
          ${csrfField(signedIn.csrfToken)}
          ${field({
            id: 'name',
            name: 'name',
            label: 'Name',
            value: options.name ?? signedIn.user.name,
            error: errors.name,
            attributes: html`autocomplete="name" required maxlength="100"`,
          })}
          <button type="submit" id="save-name">Save name</button>
        </form>
        <dl>
          <dt>E-mail address</dt><dd id="account-email">${signedIn.user.email}</dd>
        </dl>
        <p class="hint">You sign in with this address and reset links are sent to it. To change it, ask an owner of your organization to invite the new address.</p>
      </section>
      <section aria-labelledby="password-heading" class="panel">
        <h2 id="password-heading">Password</h2>
        <form method="post" action="${accountPath}/password" class="stack">
          ${csrfField(signedIn.csrfToken)}
          <input type="hidden" name="email" value="${signedIn.user.email}" autocomplete="username">
          ${field({
            id: 'current-password',
            name: 'current_password',
            label: 'Current password',
            type: 'password',
            error: errors.current_password,
            attributes: html`autocomplete="current-password" required maxlength="1024"`,
          })}
          ${newPasswordFields({ minLength: options.minLength, hint: 'Your other sessions end when you change it.', errors })}
          <button type="submit" id="change-password">Change password</button>
        </form>
      </section>
      <section aria-labelledby="sessions-heading" class="panel">
        <h2 id="sessions-heading">Sessions</h2>
        <p>Where you are signed in now. Sign out a device you do not recognize, then change your password.</p>
        ${sessionsTable(signedIn, sessions)}
        <form method="post" action="/dashboard/sign-out-everywhere">
          ${csrfField(signedIn.csrfToken)}
          <button type="submit" class="quiet" id="account-sign-out-everywhere">Sign out everywhere, this session included</button>
        </form>
      </section>
      <section aria-labelledby="region-heading" class="panel">
        <h2 id="region-heading">Time zone and language</h2>
        <dl>
          <dt>Time zone</dt><dd id="account-time-zone">${signedIn.user.timeZone.replaceAll('_', ' ')}</dd>
          <dt>Language and number format</dt><dd>${format.audience.locale}</dd>
        </dl>
        <p><a href="${preferencesPath}">Change them in Preferences</a></p>
      </section>
      <section aria-labelledby="organization-heading" class="panel">
        <h2 id="organization-heading">Organization</h2>
        ${
          signedIn.role === 'owner'
            ? html`<form method="post" action="${accountPath}/organization" class="stack">
                ${csrfField(signedIn.csrfToken)}
                ${field({
                  id: 'organization-name',
                  name: 'organization_name',
                  label: 'Organization name',
                  value: options.organizationName ?? organizationLabel(signedIn),
                  hint: 'Everyone in the organization sees it; only owners change it.',
                  error: errors.organization_name,
                  attributes: html`required maxlength="200"`,
                })}
                <button type="submit" id="rename-organization">Rename</button>
              </form>`
            : html`<dl><dt>Name</dt><dd id="account-organization">${organizationLabel(signedIn)}</dd></dl>`
        }
        <p>Your role here: <strong>${signedIn.role}</strong>.</p>
      </section>`,
  });
}
