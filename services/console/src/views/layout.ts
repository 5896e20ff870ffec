import { organizationLabel } from '../domain/organizations.js';
import type { SignedIn } from '../domain/sessions.js';
import { type Html, html, type Renderable } from './html.js';

/** The hidden field every state-changing form carries (checked by http/session.ts). */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A notice above a page's content: `role="alert"` for errors, so screen readers announce them. */
export function notice(kind: 'error' | 'info', text: string | undefined): Html {
  if (!text) return html``;
  return kind === 'error' ? html`<p class="notice error" role="alert">${text}</p>` : html`<p class="notice" role="status">${text}</p>`;
}

const approvalsHref = '/dashboard/approvals';

/** The pages the nav links to. Later pages (keys, usage, audit log, …) add themselves here when they exist. */
const navigation = [
  { href: '/dashboard', label: 'Home' },
  { href: '/dashboard/members', label: 'Members' },
  { href: '/dashboard/settings/api', label: 'API keys' },
  { href: '/dashboard/usage', label: 'Usage' },
  { href: '/dashboard/audit-log', label: 'Audit log' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: approvalsHref, label: 'Approvals' },
  { href: '/dashboard/settings/connected-apps', label: 'Connected apps' },
];

/** The count of approvals waiting for a person, after the Approvals link (none when nothing waits or it is unknown). */
const waitingCount = (pending: number | undefined) =>
  pending ? html` <span class="nav-count" id="nav-approvals-waiting">(${String(pending)} waiting)</span>` : '';

function header(signedIn: SignedIn, currentPath: string): Html {
  const switcher =
    signedIn.memberships.length > 1
      ? html`<form method="post" action="/dashboard/organization" class="switcher">
          ${csrfField(signedIn.csrfToken)}
          <label for="org-switch">Organization</label>
          <select id="org-switch" name="org_id">
            ${signedIn.memberships.map(
              (membership) =>
                html`<option value="${membership.orgId}" ${membership.orgId === signedIn.orgId ? html`selected` : ''}>${organizationLabel(signedIn, membership.orgId)} (${membership.role})</option>`,
            )}
          </select>
          <button type="submit">Switch</button>
        </form>`
      : html`<p class="org">Organization <strong>${organizationLabel(signedIn)}</strong> (${signedIn.role})</p>`;
  return html`<header class="top">
    <p class="brand">Voice console</p>
    ${switcher}
    <nav aria-label="Main">
      <ul>
        ${navigation.map(
          (item) =>
            html`<li><a href="${item.href}" ${item.href === currentPath ? html`aria-current="page"` : ''}>${item.label}${item.href === approvalsHref ? waitingCount(signedIn.pendingApprovals) : ''}</a></li>`,
        )}
      </ul>
    </nav>
    <form method="post" action="/dashboard/sign-out" class="sign-out">
      ${csrfField(signedIn.csrfToken)}
      <span>${signedIn.user.name}</span>
      <button type="submit">Sign out</button>
    </form>
  </header>`;
}

/** A whole page. Pages of a signed-in person get the header: organization, navigation, sign out. */
export function page(options: { title: string; signedIn?: SignedIn; path?: string; body: Renderable }): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Voice console</title>
<link rel="stylesheet" href="/dashboard/static/console.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${options.signedIn ? header(options.signedIn, options.path ?? '') : html`<header class="top"><p class="brand">Voice console</p></header>`}
<main id="main">
${options.body}
</main>
</body>
</html>
`;
}
