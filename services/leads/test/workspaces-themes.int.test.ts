import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { leadsRpc } from '@voice/proto';
import { type Harness, type Json, startLeads, testIdentity } from './support/harness.js';

describe('workspaces and themes', () => {
  let h: Harness;
  const org = testIdentity();
  const otherOrg = testIdentity();

  before(async () => {
    h = await startLeads();
  });
  after(async () => {
    await h?.close();
  });

  it('creates, reads, changes and deletes a workspace', async () => {
    const created = await h.request(org, 'POST', '/api/v1/workspaces', {
      name: 'North Office',
      timezone: 'America/New_York',
      locale: 'en-US',
      phone_numbers: ['+14155550100', '+14155550100'],
    });
    assert.equal(created.statusCode, 201, JSON.stringify(created.json()));
    const workspace = created.json();
    assert.match(workspace.id, /^ws_/);
    assert.equal(workspace.slug, 'north-office');
    assert.deepEqual(workspace.phone_numbers, ['+14155550100']);
    assert.equal(workspace.default_theme_id, null);

    const fetched = await h.request(org, 'GET', `/api/v1/workspaces/${workspace.id}`);
    assert.deepEqual(fetched.json(), workspace);

    const patched = await h.request(org, 'PATCH', `/api/v1/workspaces/${workspace.id}`, { name: 'North HQ', timezone: 'Europe/Paris' });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().name, 'North HQ');
    assert.equal(patched.json().timezone, 'Europe/Paris');
    assert.equal(patched.json().slug, 'north-office');

    const deleted = await h.request(org, 'DELETE', `/api/v1/workspaces/${workspace.id}`);
    assert.deepEqual(deleted.json(), { id: workspace.id, object: 'workspace', deleted: true });
    assert.equal((await h.request(org, 'GET', `/api/v1/workspaces/${workspace.id}`)).statusCode, 404);
  });

  it('keeps slugs unique per organization', async () => {
    const first = (await h.request(org, 'POST', '/api/v1/workspaces', { name: 'Sales' })).json();
    const derived = (await h.request(org, 'POST', '/api/v1/workspaces', { name: 'Sales' })).json();
    assert.equal(first.slug, 'sales');
    assert.match(derived.slug, /^sales-[a-z0-9]{4}$/);
    const chosen = await h.request(org, 'POST', '/api/v1/workspaces', { name: 'Other', slug: 'sales' });
    assert.equal(chosen.statusCode, 409);
    assert.equal(chosen.json().error.code, 'conflict');
    assert.equal(chosen.json().error.param, 'slug');
    const renamed = await h.request(org, 'PATCH', `/api/v1/workspaces/${derived.id}`, { slug: 'sales' });
    assert.equal(renamed.statusCode, 409);
    // Another organization may use the same slug.
    const elsewhere = await h.request(otherOrg, 'POST', '/api/v1/workspaces', { name: 'Sales' });
    assert.equal(elsewhere.json().slug, 'sales');
  });

  it('validates workspace input', async () => {
    for (const body of [
      { name: '' },
      { name: 'X', timezone: 'Mars/Olympus' },
      { name: 'X', locale: '12' },
      { name: 'X', slug: 'Not A Slug' },
      { name: 'X', phone_numbers: ['123'] },
    ]) {
      const response = await h.request(org, 'POST', '/api/v1/workspaces', body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().error.code, 'invalid_request');
    }
  });

  it('lists workspaces by cursor', async () => {
    const listOrg = testIdentity();
    const ids = [];
    for (let index = 0; index < 3; index++)
      ids.push((await h.request(listOrg, 'POST', '/api/v1/workspaces', { name: `W${index}` })).json().id);
    const first = (await h.request(listOrg, 'GET', '/api/v1/workspaces?limit=2')).json();
    assert.equal(first.has_more, true);
    const second = (await h.request(listOrg, 'GET', `/api/v1/workspaces?limit=2&cursor=${first.next_cursor}`)).json();
    assert.equal(second.has_more, false);
    assert.deepEqual(
      [...first.data, ...second.data].map((item: Json) => item.id),
      ids.reverse(),
    );
  });

  it('creates themes, keeps one organization default and applies a theme to a workspace', async () => {
    const themeOrg = testIdentity();
    const created = await h.request(themeOrg, 'POST', '/api/v1/themes', {
      name: 'Warm',
      greeting: 'Hi, thanks for calling!',
      tone: 'friendly',
      colors: { primary: '#FF6600', accent: '#222222' },
      logo_url: 'https://example.com/logo.png',
      is_default: true,
    });
    assert.equal(created.statusCode, 201, JSON.stringify(created.json()));
    const warm = created.json();
    assert.match(warm.id, /^thm_/);
    assert.equal(warm.voice, 'alloy');
    const cool = (await h.request(themeOrg, 'POST', '/api/v1/themes', { name: 'Cool', greeting: 'Hello.', is_default: true })).json();
    assert.equal(cool.is_default, true);
    assert.equal((await h.request(themeOrg, 'GET', `/api/v1/themes/${warm.id}`)).json().is_default, false);

    const patched = await h.request(themeOrg, 'PATCH', `/api/v1/themes/${warm.id}`, { tone: 'professional', is_default: true });
    assert.equal(patched.json().tone, 'professional');
    assert.equal((await h.request(themeOrg, 'GET', `/api/v1/themes/${cool.id}`)).json().is_default, false);

    const workspace = (await h.request(themeOrg, 'POST', '/api/v1/workspaces', { name: 'Front desk' })).json();
    const applied = await h.request(themeOrg, 'POST', `/api/v1/themes/${cool.id}/apply`, { workspace_id: workspace.id });
    assert.equal(applied.statusCode, 200);
    assert.equal(applied.json().default_theme_id, cool.id);
    const viaRpc = await h.deps.bus.call(leadsRpc.applyTheme, themeOrg, { id: warm.id, workspace_id: workspace.id });
    assert.equal(viaRpc.default_theme_id, warm.id);

    // Deleting the theme leaves the workspace without a default of its own.
    assert.equal((await h.request(themeOrg, 'DELETE', `/api/v1/themes/${warm.id}`)).statusCode, 200);
    assert.equal((await h.request(themeOrg, 'GET', `/api/v1/workspaces/${workspace.id}`)).json().default_theme_id, null);

    const list = (await h.request(themeOrg, 'GET', '/api/v1/themes')).json();
    assert.deepEqual(
      list.data.map((item: Json) => item.id),
      [cool.id],
    );
  });

  it('keeps one default theme when several are made default at once', async () => {
    const raceOrg = testIdentity();
    const made = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        h.request(raceOrg, 'POST', '/api/v1/themes', { name: `T${index}`, greeting: 'Hi', is_default: true }),
      ),
    );
    assert.ok(made.every((response) => response.statusCode === 201));
    const themes = (await h.request(raceOrg, 'GET', '/api/v1/themes')).json();
    assert.equal(themes.data.filter((theme: Json) => theme.is_default).length, 1);
  });

  it('validates theme input', async () => {
    for (const body of [
      { name: 'X' },
      { name: 'X', greeting: 'Hi', colors: { primary: 'red' } },
      { name: 'X', greeting: 'Hi', logo_url: 'http://insecure.example.com/logo.png' },
      { name: 'X', greeting: 'Hi', tone: 'grumpy' },
    ]) {
      const response = await h.request(org, 'POST', '/api/v1/themes', body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().error.code, 'invalid_request');
    }
  });

  it('keeps organizations apart', async () => {
    const workspace = (await h.request(org, 'POST', '/api/v1/workspaces', { name: 'Mine' })).json();
    const theme = (await h.request(org, 'POST', '/api/v1/themes', { name: 'Mine', greeting: 'Hi' })).json();
    const foreignTheme = (await h.request(otherOrg, 'POST', '/api/v1/themes', { name: 'Theirs', greeting: 'Hi' })).json();
    for (const [method, url, payload] of [
      ['GET', `/api/v1/workspaces/${workspace.id}`, undefined],
      ['PATCH', `/api/v1/workspaces/${workspace.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/v1/workspaces/${workspace.id}`, undefined],
      ['GET', `/api/v1/themes/${theme.id}`, undefined],
      ['PATCH', `/api/v1/themes/${theme.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/v1/themes/${theme.id}`, undefined],
      ['POST', `/api/v1/themes/${foreignTheme.id}/apply`, { workspace_id: workspace.id }],
    ] as const) {
      const response = await h.request(otherOrg, method, url, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(response.json().error.code, 'not_found');
    }
    // Pointing a workspace at another organization's theme is "no such theme".
    const crossTheme = await h.request(org, 'PATCH', `/api/v1/workspaces/${workspace.id}`, { default_theme_id: foreignTheme.id });
    assert.equal(crossTheme.statusCode, 404);
    assert.equal(crossTheme.json().error.param, 'default_theme_id');
    const otherList = (await h.request(otherOrg, 'GET', '/api/v1/workspaces')).json();
    assert.equal(
      otherList.data.some((item: Json) => item.id === workspace.id),
      false,
    );
  });
});
