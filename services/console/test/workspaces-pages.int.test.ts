// The workspaces and themes pages without a browser, through the gateway, with the real leads service and mcp
// behind the console: the lists, a workspace's page, updating it with the operation's refusals on their fields
// (nothing half-written), a theme's values as a preview, applying a theme after a preview of it, each change
// audited with the person as actor; members read and change nothing; another organization's ids are 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { consoleActions } from './support/console-audit.js';
import { Browser, invitePerson } from './support/harness.js';

const list = '/dashboard/workspaces';
const themes = `${list}/themes`;

describe('the workspaces and themes pages, through the gateway', () => {
  let platform: Platform<'leads' | 'mcp' | 'console'>;

  before(async () => {
    platform = await startPlatform({ services: ['leads', 'mcp', 'console'], leads: { WORKERS: 'outbox' } });
  });
  after(async () => {
    await platform?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.42');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return Object.assign(browser, { userId: person.userId });
  }

  /** An organization's workspaces and themes through NATS, as an API key of it would make them. */
  const leadsOf = (orgId: string) => {
    const identity = { ...testIdentity(), org_id: orgId };
    const bus = platform.console.deps.bus;
    return {
      workspace: (name: string, slug: string) =>
        bus.call(leadsRpc.createWorkspace, identity, {
          name,
          slug,
          timezone: 'America/New_York',
          locale: 'en-US',
          phone_numbers: ['+14155550100'],
        }),
      theme: (name: string, colors: { primary: string; accent?: string; background?: string; text?: string }) =>
        bus.call(leadsRpc.createTheme, identity, { name, greeting: `Hello from ${name}!`, voice: 'verse', tone: 'professional', colors }),
      get: (id: string) => bus.call(leadsRpc.getWorkspace, identity, { id }),
    };
  };

  const rowIds = (body: string, prefix: string) =>
    [...body.matchAll(new RegExp(`<tr id="row-(${prefix}_[0-9A-Za-z]+)"`, 'g'))].map((match) => match[1] as string);

  test('the lists, a workspace and a theme as a preview of its values; members see no forms', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const ours = leadsOf(orgId);
    const harbour = await ours.theme('Harbour', { primary: '#1F6FEB', accent: '#F59E0B', background: '#0B1020', text: '#F8FAFC' });
    const north = await ours.workspace('North office', 'north');
    await platform.console.deps.bus.call(
      leadsRpc.applyTheme,
      { ...testIdentity(), org_id: orgId },
      { id: harbour.id, workspace_id: north.id },
    );
    const south = await ours.workspace('South office', 'south');
    const theirs = await leadsOf(other.orgId).workspace('Their office', 'theirs');
    const member = await signedIn(orgId, 'member');

    const page = await member.get(list);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<a href="\/dashboard\/workspaces" aria-current="page">Workspaces<\/a>/);
    assert.deepEqual(new Set(rowIds(page.body, 'ws')), new Set([north.id, south.id]));
    assert.doesNotMatch(page.body, new RegExp(theirs.id));
    assert.match(page.body, new RegExp(`<a href="/dashboard/workspaces/themes/${harbour.id}">Harbour</a>`), 'a workspace’s theme by name');

    const workspace = await member.get(`${list}/${north.id}`);
    assert.equal(workspace.statusCode, 200, workspace.body);
    assert.match(workspace.body, /<h1>North office<\/h1>/);
    assert.match(workspace.body, /<dt>Time zone<\/dt><dd>America\/New York<\/dd>/);
    assert.match(workspace.body, /\+1 415 555 0100/);
    assert.match(workspace.body, /id="workspace-theme-values"/);
    assert.equal(workspace.body.includes('id="workspace-save"'), false, 'a member gets no update form');
    assert.equal(workspace.body.includes('id="workspace-theme-preview"'), false, 'a member gets no theme chooser');

    const themeList = await member.get(themes);
    assert.equal(themeList.statusCode, 200, themeList.body);
    assert.deepEqual(rowIds(themeList.body, 'thm'), [harbour.id]);
    assert.match(themeList.body, /<rect width="16" height="16" rx="4" fill="#1F6FEB"><\/rect><\/svg>Primary <code>#1F6FEB<\/code>/);
    const theme = await member.get(`${themes}/${harbour.id}`);
    assert.equal(theme.statusCode, 200, theme.body);
    for (const value of ['#1F6FEB', '#F59E0B', '#0B1020', '#F8FAFC']) assert.match(theme.body, new RegExp(`fill="${value}"`));
    assert.match(theme.body, /<dt>Voice<\/dt><dd>verse<\/dd>/);
    assert.match(theme.body, /<dt>Tone<\/dt><dd>professional<\/dd>/);
    assert.match(theme.body, /<q>Hello from Harbour!<\/q>/);
    assert.match(theme.body, /role="img" aria-label="A sample of the theme Harbour: its colours together"/);
    assert.match(theme.body, /wears this theme/);
    assert.equal(theme.body.includes('Apply…'), false, 'a member gets no apply link');

    const empty = await signedIn((await platform.org()).orgId, 'owner');
    assert.match((await empty.get(list)).body, /id="workspaces-empty">No workspaces yet\./);
    assert.match((await empty.get(themes)).body, /id="themes-empty">No themes yet\./);
  });

  test('update a workspace: saved with a toast; the operation’s refusals on their fields, nothing half-written; audited', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const ours = leadsOf(orgId);
    const north = await ours.workspace('North office', 'north');
    await ours.workspace('South office', 'south');
    const owner = await signedIn(orgId, 'owner');
    const path = `${list}/${north.id}`;
    const form = await owner.get(path);
    assert.match(form.body, /id="workspace-name" name="name" type="text" value="North office"/);
    assert.match(form.body, /<textarea id="workspace-phone-numbers"[^>]*>\+14155550100<\/textarea>/);

    const fields = {
      name: 'North HQ',
      slug: 'north-hq',
      timezone: 'Europe/Paris',
      locale: 'fr-FR',
      phone_numbers: '+33 1 23 45 67 89\n+14155550100',
    };
    const saved = await owner.post(path, fields);
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, path);
    const after = await owner.get(path);
    assert.match(after.body, /role="status">Workspace saved\.<\/p>/);
    assert.match(after.body, /<h1>North HQ<\/h1>/);
    const stored = await ours.get(north.id);
    assert.deepEqual(
      [stored.name, stored.slug, stored.timezone, stored.locale, stored.phone_numbers],
      ['North HQ', 'north-hq', 'Europe/Paris', 'fr-FR', ['+33123456789', '+14155550100']],
    );
    // The same form submitted twice: the same values, nothing more.
    assert.equal((await owner.post(path, fields)).statusCode, 303);
    assert.equal((await ours.get(north.id)).updated_at >= stored.updated_at, true);

    const refusals: Array<[Record<string, string>, number, string, RegExp]> = [
      [{ slug: 'south' }, 409, 'slug', /A workspace with the slug &quot;south&quot; already exists/],
      [{ slug: 'Not A Slug' }, 400, 'slug', /lowercase letters, digits and single hyphens/],
      [{ timezone: 'Mars/Olympus' }, 400, 'timezone', /must be an IANA time zone/],
      [{ locale: 'x' }, 400, 'locale', /./],
      [{ phone_numbers: '+1 415 555 0100\n0415' }, 400, 'phone-numbers', /./],
      [{ name: '   ' }, 400, 'name', /./],
      [{ name: 'n'.repeat(5000) }, 400, 'name', /./],
    ];
    for (const [change, status, field, message] of refusals) {
      const response = await owner.post(path, { ...fields, ...change });
      assert.equal(response.statusCode, status, `${JSON.stringify(change)}: ${response.body.slice(0, 300)}`);
      const error = new RegExp(`id="workspace-${field}-error" class="field-error">([^<]*)<`).exec(response.body)?.[1] ?? '';
      assert.match(error, message, JSON.stringify(change));
      assert.match(response.body, new RegExp(`id="workspace-${field}"[^>]*aria-invalid="true"`));
    }
    const typed = await owner.post(path, { ...fields, timezone: 'Mars/Olympus', name: 'Kept as typed' });
    assert.match(typed.body, /id="workspace-name" name="name" type="text" value="Kept as typed"/, 'what was typed stays in the form');
    const unchanged = await ours.get(north.id);
    assert.deepEqual(
      [unchanged.name, unchanged.slug, unchanged.timezone],
      ['North HQ', 'north-hq', 'Europe/Paris'],
      'a refused update changed nothing',
    );

    const records = await consoleActions(platform.gateway.deps.bus, orgId, owner.userId);
    assert.ok(records.includes(`${owner.userId} POST ${path} 200`), records.join('\n'));
    assert.ok(records.includes(`${owner.userId} POST ${path} 409`), records.join('\n'));
  });

  test('apply a theme after a preview of its values beside the current ones; audited; applying twice changes nothing more', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const ours = leadsOf(orgId);
    const harbour = await ours.theme('Harbour', { primary: '#1F6FEB', accent: '#F59E0B' });
    const meadow = await ours.theme('Meadow', { primary: '#15803D', background: '#F0FDF4', text: '#052E16' });
    const north = await ours.workspace('North office', 'north');
    const owner = await signedIn(orgId, 'owner');
    const path = `${list}/${north.id}`;

    const page = await owner.get(path);
    assert.match(page.body, /This workspace wears the organization’s default theme\./);
    assert.match(page.body, new RegExp(`<form method="get" action="${path}/apply-theme"`));
    assert.match(page.body, new RegExp(`<option value="${meadow.id}"`));

    const preview = await owner.get(`${path}/apply-theme?theme_id=${meadow.id}`);
    assert.equal(preview.statusCode, 200, preview.body);
    assert.match(preview.body, /<h1>Apply Meadow to North office\?<\/h1>/);
    assert.match(preview.body, /id="apply-theme-values"/);
    assert.match(preview.body, /fill="#15803D"/);
    assert.match(preview.body, /Now: the organization default/);
    assert.equal((await ours.get(north.id)).default_theme_id, null, 'a preview changes nothing');

    const applied = await owner.post(`${path}/apply-theme`, { theme_id: meadow.id });
    assert.equal(applied.statusCode, 303, applied.body);
    assert.equal(applied.headers.location, path);
    const after = await owner.get(path);
    assert.match(after.body, /role="status">Theme applied to the workspace\.<\/p>/);
    assert.match(after.body, new RegExp(`id="workspace-theme-name"><a href="/dashboard/workspaces/themes/${meadow.id}">Meadow</a>`));
    assert.equal((await ours.get(north.id)).default_theme_id, meadow.id);
    assert.equal((await owner.post(`${path}/apply-theme`, { theme_id: meadow.id })).statusCode, 303, 'a second submit: the same state');
    assert.equal((await ours.get(north.id)).default_theme_id, meadow.id);

    // From the theme's page: each workspace's preview link, and the current theme beside the new one.
    const theme = await owner.get(`${themes}/${harbour.id}`);
    const href = new RegExp(`id="apply-${north.id}" href="([^"]+)"`).exec(theme.body)?.[1]?.replaceAll('&amp;', '&');
    assert.equal(href, `${path}/apply-theme?theme_id=${harbour.id}`);
    const compare = await owner.get(href);
    assert.match(compare.body, /Now: Meadow/);
    assert.match(compare.body, /id="apply-theme-current"/);

    const records = await consoleActions(platform.gateway.deps.bus, orgId, owner.userId);
    assert.ok(records.includes(`${owner.userId} POST ${path}/apply-theme 200`), records.join('\n'));
  });

  test('members’ hand-made POSTs are refused; another organization’s ids are 404 on every page and action; bad ids and cursors', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const ours = leadsOf(orgId);
    const theme = await ours.theme('Harbour', { primary: '#1F6FEB' });
    const north = await ours.workspace('North office', 'north');
    const theirs = leadsOf(other.orgId);
    const theirTheme = await theirs.theme('Theirs', { primary: '#000000' });
    const theirWorkspace = await theirs.workspace('Their office', 'theirs');
    const path = `${list}/${north.id}`;

    const member = await signedIn(orgId, 'member');
    await member.get(path);
    const refused = [
      await member.post(path, { name: 'Taken over', slug: 'north', timezone: 'UTC', locale: 'en-US', phone_numbers: '' }),
      await member.post(`${path}/apply-theme`, { theme_id: theme.id }),
      await member.get(`${path}/apply-theme?theme_id=${theme.id}`),
    ];
    assert.deepEqual(
      refused.map((response) => response.statusCode),
      [403, 403, 403],
    );
    const untouched = await ours.get(north.id);
    assert.deepEqual([untouched.name, untouched.default_theme_id], ['North office', null]);

    const owner = await signedIn(orgId, 'owner');
    await owner.get(path);
    const foreign = [
      await owner.get(`${list}/${theirWorkspace.id}`),
      await owner.post(`${list}/${theirWorkspace.id}`, {
        name: 'Ours now',
        slug: 'theirs',
        timezone: 'UTC',
        locale: 'en-US',
        phone_numbers: '',
      }),
      await owner.get(`${themes}/${theirTheme.id}`),
      await owner.get(`${list}/${theirWorkspace.id}/apply-theme?theme_id=${theme.id}`),
      await owner.post(`${list}/${theirWorkspace.id}/apply-theme`, { theme_id: theme.id }),
      await owner.get(`${path}/apply-theme?theme_id=${theirTheme.id}`),
      await owner.post(`${path}/apply-theme`, { theme_id: theirTheme.id }),
    ];
    assert.deepEqual(
      foreign.map((response) => response.statusCode),
      [404, 404, 404, 404, 404, 404, 404],
    );
    assert.match(foreign[0]?.body ?? '', /Your organization has no workspace with this id\./);
    assert.match(foreign[2]?.body ?? '', /Your organization has no theme with this id\./);
    const theirsAfter = await theirs.get(theirWorkspace.id);
    assert.deepEqual([theirsAfter.name, theirsAfter.default_theme_id], ['Their office', null], 'their workspace is untouched');
    assert.equal((await ours.get(north.id)).default_theme_id, null);

    for (const address of [
      `${list}/nothing_here`,
      `${themes}/nothing_here`,
      `${list}/ws_${'x'.repeat(60)}/apply-theme?theme_id=${theme.id}`,
    ]) {
      assert.equal((await owner.get(address)).statusCode, 404, address);
    }
    for (const address of [
      `${list}?cursor=garbage`,
      `${themes}?cursor=garbage`,
      `${list}?cursor=${'x'.repeat(600)}`,
      `${path}/apply-theme`,
      `${path}/apply-theme?theme_id=blue`,
    ]) {
      const response = await owner.get(address);
      assert.equal(response.statusCode, 400, address);
      assert.match(response.headers['content-type'] as string, /^text\/html/);
    }
    assert.equal((await owner.post(`${path}/apply-theme`, { theme_id: 'x'.repeat(5000) })).statusCode, 400);
    assert.equal((await ours.get(north.id)).default_theme_id, null, 'nothing half-written');
  });
});
