// Sequences, workspaces and themes in a real browser (headless Chromium, through the gateway, the console's
// Content-Security-Policy enforced), with the real leads service: a person opens a sequence, enrolls a lead
// (made through leadsRpc, as an API key would), sees its enrollment, unenrolls it after the confirmation page;
// then changes a workspace and applies a theme after its preview.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

describe('sequences, workspaces and themes in a browser', () => {
  let app: ConsoleInBrowser;
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(async () => {
    await app?.close();
  });

  test('open a sequence, enroll a lead, see its enrollment, unenroll it after the confirmation; update a workspace and apply a theme', async () => {
    const { orgId } = await app.platform.org({ plan: 'pro' });
    const identity = testIdentity({ org_id: orgId });
    const bus = app.platform.leads.deps.bus;
    // The first step waits (the longest wait a step may have), so the enrollment is still active when unenrolled.
    const sequence = await bus.call(leadsRpc.createSequence, identity, {
      name: 'Welcome',
      steps: [
        { type: 'wait', delay_seconds: 90 * 86_400 },
        { type: 'call', delay_seconds: 0 },
      ],
    });
    const lead = await bus.call(leadsRpc.createLead, identity, { name: 'Ada Lovelace', phone: '+14155550123' });
    const workspace = await bus.call(leadsRpc.createWorkspace, identity, { name: 'North office', slug: 'north' });
    const theme = await bus.call(leadsRpc.createTheme, identity, {
      name: 'Harbour',
      greeting: 'Hello from the harbour!',
      colors: { primary: '#1F6FEB', accent: '#F59E0B' },
    });

    const person = await openBrowser();
    const refused: string[] = [];
    person.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await acceptInvitation(person.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Sam Sequencer');
    const { page } = person;

    // A sequence: from the sidebar to its page.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sequences' }).click();
    await page.getByRole('link', { name: 'Welcome' }).click();
    await page.getByRole('heading', { name: 'Welcome', level: 1 }).waitFor();
    await page.locator('#enrollments-empty').waitFor();

    // Enroll the lead; its enrollment appears, active, its lead linking to the lead's page.
    await page.getByLabel('Lead id').fill(lead.id);
    await page.locator('#enroll-submit').click();
    await page.getByRole('status').filter({ hasText: 'Lead enrolled.' }).waitFor();
    const row = page.locator('#enrollments tbody tr').first();
    assert.equal(await row.locator('.badge').textContent(), 'active');
    assert.equal(await row.getByRole('link', { name: lead.id, exact: true }).getAttribute('href'), `/dashboard/leads/${lead.id}`);

    // Unenroll after the confirmation page.
    await row.getByRole('link', { name: /^Unenroll…/ }).click();
    await page.getByRole('heading', { name: 'Stop Welcome for this lead?' }).waitFor();
    await page.locator('#unenroll-confirm').click();
    await page.getByRole('status').filter({ hasText: 'Lead unenrolled' }).waitFor();
    assert.equal(await page.locator('#enrollments tbody tr').first().locator('.badge').textContent(), 'stopped');
    assert.equal(new URL(page.url()).pathname, `/dashboard/sequences/${sequence.id}`);

    // A workspace: change its name and time zone.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workspaces' }).click();
    await page.getByRole('link', { name: 'North office' }).click();
    await page.getByLabel('Name', { exact: true }).fill('North HQ');
    await page.getByLabel('Time zone', { exact: true }).fill('Europe/Paris');
    await page.locator('#workspace-save').click();
    await page.getByRole('status').filter({ hasText: 'Workspace saved.' }).waitFor();
    await page.getByRole('heading', { name: 'North HQ', level: 1 }).waitFor();

    // Apply a theme: choose it, see its values, apply.
    await page.getByLabel('Theme to apply', { exact: true }).selectOption(theme.id);
    await page.locator('#workspace-theme-preview').click();
    await page.getByRole('heading', { name: 'Apply Harbour to North HQ?' }).waitFor();
    assert.match((await page.locator('#apply-theme-values').textContent()) ?? '', /#1F6FEB[\s\S]*#F59E0B[\s\S]*Hello from the harbour!/);
    await page.locator('#apply-theme-confirm').click();
    await page.getByRole('status').filter({ hasText: 'Theme applied to the workspace.' }).waitFor();
    assert.equal(await page.locator('#workspace-theme-name').textContent(), 'Harbour');
    const stored = await bus.call(leadsRpc.getWorkspace, identity, { id: workspace.id });
    assert.deepEqual([stored.name, stored.timezone, stored.default_theme_id], ['North HQ', 'Europe/Paris', theme.id]);
    assert.deepEqual(refused, [], 'nothing was refused by the Content-Security-Policy');
  });
});
