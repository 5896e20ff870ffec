import { organizationLabel } from '../domain/organizations.js';
import type { SignedIn } from '../domain/sessions.js';
import { csrfField, notice, toast } from './components.js';
import { type Html, html, type Renderable } from './html.js';

// Pages built before the components module import these from here.
export { csrfField, notice };

export const preferencesPath = '/dashboard/settings/preferences';

interface NavItem {
  href: string;
  label: string;
  /**
   * False for a page another change builds later: its entry stays out of the sidebar (no link to a 404)
   * until that change flips it with its route.
   */
  built?: boolean;
}

/** The sidebar, grouped by what people come to do. A new page is one more entry. */
const navigation: Array<{ heading?: string; items: NavItem[] }> = [
  { items: [{ href: '/dashboard', label: 'Overview' }] },
  {
    heading: 'Phone',
    items: [
      { href: '/dashboard/calls', label: 'Calls' },
      { href: '/dashboard/messages', label: 'Messages' },
      { href: '/dashboard/do-not-call', label: 'Do-not-call' },
    ],
  },
  {
    heading: 'Sales',
    items: [
      { href: '/dashboard/leads', label: 'Leads' },
      { href: '/dashboard/sequences', label: 'Sequences' },
      { href: '/dashboard/invoices', label: 'Billing' },
    ],
  },
  {
    heading: 'Agent',
    items: [
      { href: '/dashboard/workspaces', label: 'Workspaces' },
      { href: '/dashboard/knowledge', label: 'Knowledge' },
      { href: '/dashboard/brand-score', label: 'Brand score' },
    ],
  },
  {
    heading: 'Developers',
    items: [
      { href: '/dashboard/settings/api', label: 'API keys' },
      { href: '/dashboard/webhooks', label: 'Webhooks' },
      { href: '/dashboard/usage', label: 'Usage' },
      { href: '/dashboard/audit-log', label: 'Audit log' },
      { href: '/dashboard/settings/connected-apps', label: 'Connected apps' },
    ],
  },
  {
    heading: 'Settings',
    items: [
      { href: '/dashboard/members', label: 'Members' },
      { href: '/dashboard/approvals', label: 'Approvals' },
      { href: preferencesPath, label: 'Preferences' },
      { href: '/dashboard/settings/account', label: 'Account' },
    ],
  },
];

const approvalsHref = '/dashboard/approvals';

/**
 * Where the "Test data" switch may send the person back to: the navigation's pages, whose lists exist in
 * either mode (a record's own page would be another mode's 404), and nothing else (no open redirect).
 */
export const switchReturnPaths: ReadonlySet<string> = new Set(navigation.flatMap((group) => group.items.map((item) => item.href)));

export const modePath = '/dashboard/mode';

/** What the frame shows besides the page: where the person is, and how many approvals wait for them. */
export interface Frame {
  currentPath: string;
  pendingApprovals?: number | undefined;
}

function navList(frame: Frame): Html {
  return html`${navigation.map(
    (group) => html`<div class="nav-group">
      ${group.heading ? html`<p class="nav-heading">${group.heading}</p>` : ''}
      <ul>
        ${group.items
          .filter((item) => item.built !== false)
          .map((item) => {
            const pending = item.href === approvalsHref && frame.pendingApprovals ? frame.pendingApprovals : 0;
            return html`<li><a href="${item.href}" ${item.href === frame.currentPath ? html`aria-current="page"` : ''}>${item.label}${
              pending ? html` <span class="count">${pending}<span class="visually-hidden"> waiting</span></span>` : ''
            }</a></li>`;
          })}
      </ul>
    </div>`,
  )}`;
}

/**
 * The organization the pages are about, and a way to switch to another of the person's organizations: a
 * `<details>` menu, so it opens without JavaScript; its form posts the choice.
 */
function organizationMenu(signedIn: SignedIn): Html {
  const name = organizationLabel(signedIn);
  if (signedIn.memberships.length <= 1) {
    return html`<p class="org"><span class="visually-hidden">Organization </span><strong>${name}</strong> <span class="role">${signedIn.role}</span></p>`;
  }
  return html`<details class="menu org">
    <summary><span class="visually-hidden">Organization </span><strong>${name}</strong> <span class="role">${signedIn.role}</span></summary>
    <div class="menu-panel">
      <form method="post" action="/dashboard/organization" class="switcher">
        ${csrfField(signedIn.csrfToken)}
        <label for="org-switch">Organization</label>
        <select id="org-switch" name="org_id">
          ${signedIn.memberships.map(
            (membership) =>
              html`<option value="${membership.orgId}" ${membership.orgId === signedIn.orgId ? html`selected` : ''}>${organizationLabel(signedIn, membership.orgId)} (${membership.role})</option>`,
          )}
        </select>
        <button type="submit">Switch</button>
      </form>
    </div>
  </details>`;
}

/** A form that sets the session's mode, from any page, back to that page's section. */
function modeForm(signedIn: SignedIn, current: Frame, mode: 'live' | 'test', control: Html, className: string): Html {
  const back = switchReturnPaths.has(current.currentPath) ? current.currentPath : '/dashboard';
  return html`<form method="post" action="${modePath}" class="${className}">
    ${csrfField(signedIn.csrfToken)}
    <input type="hidden" name="mode" value="${mode}">
    <input type="hidden" name="back" value="${back}">
    ${control}
  </form>`;
}

/**
 * The "Test data" switch (Stripe's "Test mode" toggle): a button with the switch role, so its name stays
 * "Test data" and its state is read as on or off; pressing it posts the other mode. Works without JavaScript.
 */
function modeSwitch(signedIn: SignedIn, current: Frame): Html {
  const on = signedIn.mode === 'test';
  return modeForm(
    signedIn,
    current,
    on ? 'live' : 'test',
    html`<button type="submit" role="switch" aria-checked="${on ? 'true' : 'false'}" id="test-mode-switch" class="switch"><span class="switch-track" aria-hidden="true"></span>Test data</button>`,
    'mode-switch',
  );
}

/** While test mode is on, every page says so, and offers the way back to live data. */
function testModeBanner(signedIn: SignedIn, current: Frame): Html {
  if (signedIn.mode !== 'test') return html``;
  return html`<section class="test-banner" id="test-mode-banner" aria-label="Test mode">
  <p><strong>Test mode:</strong> you are viewing test data. Nothing here reaches real phones or customers.</p>
  ${modeForm(signedIn, current, 'live', html`<button type="submit" id="leave-test-mode" class="leave-test-mode">View live data</button>`, 'test-banner-leave')}
</section>`;
}

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase())
    .join('');

/** The person: who is signed in, their preferences, and signing out (kept in view: it is what people look for). */
function personMenu(signedIn: SignedIn): Html {
  return html`<div class="person">
    <details class="menu person-menu">
      <summary><span class="avatar" aria-hidden="true">${initials(signedIn.user.name)}</span><span class="person-name">${signedIn.user.name}</span></summary>
      <div class="menu-panel">
        <p class="menu-who">${signedIn.user.name}<br><span class="muted">${signedIn.user.email}</span></p>
        <a href="/dashboard/settings/account">Account</a>
        <a href="${preferencesPath}">Time zone and preferences</a>
      </div>
    </details>
    <form method="post" action="/dashboard/sign-out" class="sign-out">
      ${csrfField(signedIn.csrfToken)}
      <button type="submit" class="quiet">Sign out</button>
    </form>
  </div>`;
}

function brand(): Html {
  return html`<a class="brand" href="/dashboard"><svg class="logo" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true"><rect width="24" height="24" rx="6"></rect><path d="M6 12h2M9.5 8v8M13 6v12M16.5 9v6M18 12h0"></path></svg><span class="brand-name">Voice console</span></a>`;
}

/**
 * The frame of a signed-in page: the top bar (organization, person), the sidebar and, on a narrow screen, the
 * same navigation folded into a "Menu" `<details>` (the sidebar is hidden there by CSS, the fold on wide
 * screens, so one of the two is ever in the accessibility tree).
 */
function frame(signedIn: SignedIn, current: Frame, body: Renderable): Html {
  return html`<header class="topbar">
  ${brand()}
  ${organizationMenu(signedIn)}
  ${modeSwitch(signedIn, current)}
  ${personMenu(signedIn)}
</header>
${testModeBanner(signedIn, current)}
<details class="mobile-nav">
  <summary>Menu</summary>
  <nav aria-label="Main">${navList(current)}</nav>
</details>
<div class="shell">
  <nav aria-label="Main" class="sidebar">${navList(current)}</nav>
  <main id="main">
  ${toast(signedIn.toast)}
  ${body}
  </main>
</div>`;
}

/**
 * A whole page. A signed-in person's page gets the frame; the pages before sign-in (sign-in, invitations)
 * a narrow centred column under the brand.
 */
export function page(options: {
  title: string;
  signedIn?: SignedIn;
  path?: string;
  /** The page has live regions (`data-live`): load static/live.js and give it a polite place to announce changes. */
  live?: boolean;
  body: Renderable;
}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${options.title} · Voice console</title>
<link rel="stylesheet" href="/dashboard/static/console.css">
</head>
<body class="${options.signedIn ? 'app' : 'outside'}">
<a class="skip" href="#main">Skip to content</a>
${
  options.signedIn
    ? frame(options.signedIn, { currentPath: options.path ?? '', pendingApprovals: options.signedIn.pendingApprovals }, options.body)
    : html`<header class="topbar">${brand()}</header>
<main id="main">
${options.body}
</main>`
}
${
  options.live && options.signedIn
    ? html`<p id="live-announcer" class="visually-hidden" role="status" aria-live="polite"></p>
<script src="/dashboard/static/live.js" defer></script>`
    : ''
}
</body>
</html>
`;
}
