import type { Page, Theme, Workspace } from '@voice/proto';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { applyThemePath, themePath, themesPath, type WorkspaceForm, workspacePath, workspacesPath } from '../domain/workspaces.js';
import {
  badge,
  csrfField,
  dataTable,
  emptyState,
  type FieldErrors,
  field,
  formatFor,
  notice,
  pageHeader,
  pager,
  time,
} from './components.js';
import { type Html, html } from './html.js';
import { page } from './layout.js';

/** The preview of applying a theme to a workspace. */
export const applyThemeHref = (workspaceId: string, themeId: string) =>
  `${applyThemePath(workspaceId)}?${new URLSearchParams({ theme_id: themeId }).toString()}`;

const colourNames = { primary: 'Primary', accent: 'Accent', background: 'Background', text: 'Text' } as const;

/** A theme's colours, each as a swatch (an SVG fill: the policy allows no inline style) with its name and value. */
export function swatches(theme: Theme, id?: string): Html {
  const colours = (Object.keys(colourNames) as Array<keyof typeof colourNames>).flatMap((name) => {
    const value = theme.colors[name];
    return value ? [[name, value] as const] : [];
  });
  return html`<ul class="swatches"${id ? html` id="${id}"` : ''}>${colours.map(
    ([name, value]) =>
      html`<li><svg class="theme-swatch" viewBox="0 0 16 16" width="20" height="20" aria-hidden="true"><rect width="16" height="16" rx="4" fill="${value}"></rect></svg>${colourNames[name]} <code>${value.toUpperCase()}</code></li>`,
  )}</ul>`;
}

/**
 * A theme's colours together, as a widget of the agent would wear them: its background, the greeting in its
 * text colour, a button in the primary colour and a mark in the accent. Drawn in SVG (fill attributes), named
 * for screen readers by its values, which the list beside it also gives in words.
 */
function sample(theme: Theme): Html {
  const background = theme.colors.background ?? '#FFFFFF';
  const text = theme.colors.text ?? '#111111';
  const greeting = theme.greeting.length > 40 ? `${theme.greeting.slice(0, 39)}…` : theme.greeting;
  return html`<svg class="theme-sample" viewBox="0 0 320 120" role="img" aria-label="A sample of the theme ${theme.name}: its colours together">
    <rect width="320" height="120" rx="12" fill="${background}" stroke="${text}" stroke-opacity="0.2"></rect>
    <circle cx="28" cy="30" r="10" fill="${theme.colors.accent ?? theme.colors.primary}"></circle>
    <text x="48" y="35" fill="${text}" font-size="14" font-family="system-ui, sans-serif">${theme.name}</text>
    <text x="20" y="66" fill="${text}" font-size="13" font-family="system-ui, sans-serif">${greeting}</text>
    <rect x="20" y="80" width="112" height="28" rx="6" fill="${theme.colors.primary}"></rect>
    <text x="76" y="99" fill="${background}" font-size="12" text-anchor="middle" font-family="system-ui, sans-serif">Talk to us</text>
  </svg>`;
}

/** Everything a theme sets, as a preview: the colours as swatches and together, the voice, tone, greeting and logo. */
export function themeValues(theme: Theme, id: string): Html {
  return html`<div class="theme-preview" id="${id}">
    ${sample(theme)}
    <dl>
      <dt>Colours</dt><dd>${swatches(theme)}</dd>
      <dt>Voice</dt><dd>${theme.voice}</dd>
      <dt>Tone</dt><dd>${theme.tone}</dd>
      <dt>Greeting</dt><dd><q>${theme.greeting}</q></dd>
      <dt>Logo</dt><dd>${theme.logo_url ? html`<code>${theme.logo_url}</code>` : html`<span class="muted">none</span>`}</dd>
      <dt>Organization default</dt><dd>${theme.is_default ? 'yes: used by every workspace without a theme of its own' : 'no'}</dd>
    </dl>
  </div>`;
}

const themeLink = (theme: Theme | undefined, themeId: string | null) =>
  themeId
    ? html`<a href="${themePath(themeId)}">${theme?.name ?? html`<code>${themeId}</code>`}</a>`
    : html`<span class="muted">the organization default</span>`;

const listPager = (path: string, cursor: string | undefined, next: string | null, what: string, id: string) =>
  pager({
    label: `Pages of the ${what}`,
    newest: cursor ? path : undefined,
    older: next ? { href: `${path}?${new URLSearchParams({ cursor: next })}`, id, text: `More ${what}` } : undefined,
  });

const tabs = (current: 'workspaces' | 'themes') =>
  html`<nav class="segmented" aria-label="Workspaces and themes">
    <a href="${workspacesPath}"${current === 'workspaces' ? html` aria-current="page"` : ''}>Workspaces</a>
    <a href="${themesPath}" id="themes-tab"${current === 'themes' ? html` aria-current="page"` : ''}>Themes</a>
  </nav>`;

/** The organization's workspaces (offices, brands or teams). */
export function workspacesListPage(
  signedIn: SignedIn,
  view: { workspaces: Page<Workspace>; themes: Map<string, Theme>; cursor?: string | undefined },
) {
  const format = formatFor(signedIn);
  const { workspaces } = view;
  return page({
    title: 'Workspaces',
    signedIn,
    path: workspacesPath,
    body: html`${pageHeader({
      title: 'Workspaces',
      lead: 'Your offices, brands or teams: each has its time zone, locale, phone numbers and the theme its voice agent wears.',
    })}
      ${tabs('workspaces')}
      ${
        workspaces.data.length === 0
          ? emptyState({
              id: 'workspaces-empty',
              title: view.cursor ? 'No more workspaces.' : 'No workspaces yet.',
              next: view.cursor
                ? html`<a href="${workspacesPath}">Back to the first page</a>.`
                : 'Workspaces are made through the API; each then gets a page here to change it and choose its theme.',
            })
          : dataTable({
              id: 'workspaces',
              caption: 'Workspaces',
              captionHidden: true,
              head: html`<th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Time zone</th><th scope="col">Locale</th><th scope="col">Numbers</th><th scope="col">Theme</th><th scope="col">Created</th>`,
              rows: workspaces.data.map(
                (workspace) => html`<tr id="row-${workspace.id}">
                  <th scope="row"><a href="${workspacePath(workspace.id)}">${workspace.name}</a></th>
                  <td><code>${workspace.slug}</code></td>
                  <td>${workspace.timezone.replaceAll('_', ' ')}</td>
                  <td>${workspace.locale}</td>
                  <td class="num">${format.number(workspace.phone_numbers.length)}</td>
                  <td>${themeLink(workspace.default_theme_id ? view.themes.get(workspace.default_theme_id) : undefined, workspace.default_theme_id)}</td>
                  <td class="nowrap">${time(format, workspace.created_at)}</td>
                </tr>`,
              ),
            })
      }
      ${listPager(workspacesPath, view.cursor, workspaces.next_cursor, 'workspaces', 'workspaces-older')}`,
  });
}

/** The update form: owners and admins. The leads service's refusals land on the field their `param` names. */
export interface WorkspaceFormView {
  values: WorkspaceForm;
  errors?: FieldErrors;
  error?: string | undefined;
}

function updateForm(signedIn: SignedIn, workspace: Workspace, form: WorkspaceFormView): Html {
  const { values, errors = {} } = form;
  return html`<section aria-labelledby="workspace-edit-heading" class="panel">
    <h2 id="workspace-edit-heading">Change the workspace</h2>
    ${notice('error', form.error)}
    <form method="post" action="${workspacePath(workspace.id)}" class="stack">
      ${csrfField(signedIn.csrfToken)}
      ${field({ id: 'workspace-name', name: 'name', label: 'Name', value: values.name, error: errors.name, attributes: html`required maxlength="200"` })}
      ${field({
        id: 'workspace-slug',
        name: 'slug',
        label: 'Slug',
        value: values.slug,
        hint: 'Lowercase letters, digits and single hyphens, unique in the organization, e.g. north-office.',
        error: errors.slug,
        attributes: html`required maxlength="64" autocomplete="off" spellcheck="false"`,
      })}
      ${field({
        id: 'workspace-timezone',
        name: 'timezone',
        label: 'Time zone',
        value: values.timezone,
        hint: 'An IANA name, e.g. America/New_York: when the agent calls and what “today” means here.',
        error: errors.timezone,
        attributes: html`required maxlength="64" autocomplete="off" spellcheck="false"`,
      })}
      ${field({
        id: 'workspace-locale',
        name: 'locale',
        label: 'Locale',
        value: values.locale,
        hint: 'A language tag, e.g. en-US or fr-CA.',
        error: errors.locale,
        attributes: html`required maxlength="35" autocomplete="off" spellcheck="false"`,
      })}
      ${field({
        id: 'workspace-phone-numbers',
        name: 'phone_numbers',
        label: 'Phone numbers',
        hint: 'One per line, in international form: + and the country code, e.g. +14155550123. At most 20.',
        error: errors.phone_numbers,
        control: (describedBy, invalid) =>
          html`<textarea id="workspace-phone-numbers" name="phone_numbers" rows="3" maxlength="1000"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${invalid ? html` aria-invalid="true"` : ''}>${values.phone_numbers}</textarea>`,
      })}
      <button type="submit" id="workspace-save">Save changes</button>
    </form>
  </section>`;
}

/** The form that picks a theme to preview before applying it (a GET: nothing changes until the preview's button). */
function themeChooser(workspace: Workspace, themes: Theme[]): Html {
  if (themes.length === 0)
    return html`<p class="muted" id="workspace-no-themes">The organization has no themes yet; they are made through the API.</p>`;
  return html`<form method="get" action="${applyThemePath(workspace.id)}" class="filters" aria-label="Choose a theme to apply">
    <div class="filter-field"><label for="workspace-theme">Theme to apply</label>
    <select id="workspace-theme" name="theme_id">
      ${themes.map((theme) => html`<option value="${theme.id}" ${theme.id === workspace.default_theme_id ? html`selected` : ''}>${theme.name}</option>`)}
    </select></div>
    <button type="submit" id="workspace-theme-preview">Preview…</button>
  </form>`;
}

export interface WorkspaceView {
  workspace: Workspace;
  /** The workspace's own theme, when it has one. */
  theme?: Theme | undefined;
  /** The first page of the organization's themes, to choose from. */
  themes: Theme[];
  form?: WorkspaceFormView | undefined;
}

/** A workspace: its settings, its theme, and (owners and admins) changing it and applying another theme. */
export function workspacePage(signedIn: SignedIn, view: WorkspaceView) {
  const format = formatFor(signedIn);
  const { workspace, theme } = view;
  const manage = canManage(signedIn.role);
  return page({
    title: `Workspace ${workspace.name}`,
    signedIn,
    path: workspacesPath,
    body: html`<p><a href="${workspacesPath}">← Workspaces</a></p>
      ${pageHeader({ title: workspace.name, lead: html`<code>${workspace.id}</code>` })}
      <dl id="workspace-facts">
        <dt>Slug</dt><dd><code>${workspace.slug}</code></dd>
        <dt>Time zone</dt><dd>${workspace.timezone.replaceAll('_', ' ')}</dd>
        <dt>Locale</dt><dd>${workspace.locale}</dd>
        <dt>Phone numbers</dt><dd>${
          workspace.phone_numbers.length === 0
            ? html`<span class="muted">none</span>`
            : html`<ul class="plain">${workspace.phone_numbers.map((number) => html`<li>${format.phone(number)}</li>`)}</ul>`
        }</dd>
        <dt>Theme</dt><dd id="workspace-theme-name">${themeLink(theme, workspace.default_theme_id)}</dd>
        <dt>Changed</dt><dd>${time(format, workspace.updated_at)}</dd>
      </dl>
      <section aria-labelledby="workspace-theme-heading">
        <h2 id="workspace-theme-heading">Theme</h2>
        ${theme ? themeValues(theme, 'workspace-theme-values') : html`<p>This workspace wears the organization’s default theme.</p>`}
        ${manage ? themeChooser(workspace, view.themes) : ''}
      </section>
      ${manage && view.form ? updateForm(signedIn, workspace, view.form) : ''}`,
  });
}

/** The organization's themes, each with its colours. */
export function themesListPage(signedIn: SignedIn, view: { themes: Page<Theme>; cursor?: string | undefined }) {
  const { themes } = view;
  return page({
    title: 'Themes',
    signedIn,
    path: workspacesPath,
    body: html`${pageHeader({
      title: 'Themes',
      lead: 'How the voice agent sounds and looks: its voice, greeting and tone, and the colours and logo of its widgets. A workspace wears one.',
    })}
      ${tabs('themes')}
      ${
        themes.data.length === 0
          ? emptyState({
              id: 'themes-empty',
              title: view.cursor ? 'No more themes.' : 'No themes yet.',
              next: view.cursor ? html`<a href="${themesPath}">Back to the first page</a>.` : 'Themes are made through the API.',
            })
          : dataTable({
              id: 'themes',
              caption: 'Themes',
              captionHidden: true,
              head: html`<th scope="col">Name</th><th scope="col">Colours</th><th scope="col">Voice</th><th scope="col">Tone</th><th scope="col">Default</th>`,
              rows: themes.data.map(
                (theme) => html`<tr id="row-${theme.id}">
                  <th scope="row"><a href="${themePath(theme.id)}">${theme.name}</a></th>
                  <td>${swatches(theme)}</td>
                  <td>${theme.voice}</td>
                  <td>${theme.tone}</td>
                  <td>${theme.is_default ? badge('active', 'organization default') : ''}</td>
                </tr>`,
              ),
            })
      }
      ${listPager(themesPath, view.cursor, themes.next_cursor, 'themes', 'themes-older')}`,
  });
}

/** A theme's values, and (owners and admins) the workspaces to apply it to, each through its preview. */
export function themePage(signedIn: SignedIn, view: { theme: Theme; workspaces: Workspace[] }) {
  const { theme, workspaces } = view;
  const manage = canManage(signedIn.role);
  return page({
    title: `Theme ${theme.name}`,
    signedIn,
    path: workspacesPath,
    body: html`<p><a href="${themesPath}">← Themes</a></p>
      ${pageHeader({ title: theme.name, lead: html`<code>${theme.id}</code>` })}
      ${themeValues(theme, 'theme-values')}
      <section aria-labelledby="theme-workspaces-heading">
        <h2 id="theme-workspaces-heading">Workspaces</h2>
        ${
          workspaces.length === 0
            ? html`<p class="muted">No workspaces yet.</p>`
            : html`<ul class="plain" id="theme-workspaces">${workspaces.map(
                (workspace) =>
                  html`<li><a href="${workspacePath(workspace.id)}">${workspace.name}</a> ${
                    workspace.default_theme_id === theme.id
                      ? badge('active', 'wears this theme')
                      : manage
                        ? html`<a class="button" id="apply-${workspace.id}" href="${applyThemeHref(workspace.id, theme.id)}">Apply…<span class="visually-hidden"> to ${workspace.name}</span></a>`
                        : ''
                  }</li>`,
              )}</ul>`
        }
      </section>`,
  });
}

/** Before a theme is applied: what the workspace wears now and what it will wear, and the button that applies it. */
export function applyThemePage(signedIn: SignedIn, view: { workspace: Workspace; theme: Theme; current?: Theme | undefined }) {
  const { workspace, theme, current } = view;
  const already = workspace.default_theme_id === theme.id;
  return page({
    title: `Apply ${theme.name} to ${workspace.name}`,
    signedIn,
    path: workspacesPath,
    body: html`<p><a href="${workspacePath(workspace.id)}">← ${workspace.name}</a></p>
      ${pageHeader({
        title: `Apply ${theme.name} to ${workspace.name}?`,
        lead: already
          ? 'The workspace already wears this theme; applying it again changes nothing.'
          : 'The voice agent of this workspace will use these values from its next call or message.',
      })}
      <div class="theme-compare">
        <section aria-labelledby="theme-new-heading">
          <h2 id="theme-new-heading">${theme.name}</h2>
          ${themeValues(theme, 'apply-theme-values')}
        </section>
        <section aria-labelledby="theme-now-heading">
          <h2 id="theme-now-heading">Now: ${current ? current.name : 'the organization default'}</h2>
          ${current ? themeValues(current, 'apply-theme-current') : html`<p>This workspace has no theme of its own.</p>`}
        </section>
      </div>
      <div class="actions">
        <form method="post" action="${applyThemePath(workspace.id)}" class="inline">
          ${csrfField(signedIn.csrfToken)}
          <input type="hidden" name="theme_id" value="${theme.id}">
          <button type="submit" id="apply-theme-confirm" class="primary">Apply ${theme.name}</button>
        </form>
        <a href="${workspacePath(workspace.id)}" class="button">Cancel</a>
      </div>`,
  });
}
