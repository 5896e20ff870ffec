// Leads in a real browser (headless Chromium, through the gateway, the console's Content-Security-Policy
// enforced): a person adds a lead, adds a note, enrolls it in a sequence from its page, enrolls others from
// the list with checkboxes, and deletes it after the confirmation page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

describe('leads in a browser', () => {
  let app: ConsoleInBrowser;
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser({ telephony: { WORKERS: 'outbox' } });
  });
  after(async () => {
    await app?.close();
  });

  test('add a lead, add a note, enroll it in a sequence, enroll others from the list, then delete it', async () => {
    const { orgId } = await app.platform.org({ plan: 'pro' });
    const identity = testIdentity({ org_id: orgId });
    const sequence = await app.platform.leads.deps.bus.call(leadsRpc.createSequence, identity, {
      name: 'Spring follow-up',
      steps: [{ type: 'wait', delay_seconds: 86_400 }],
    });
    const person = await openBrowser();
    const refused: string[] = [];
    person.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const { page } = person;
    await acceptInvitation(page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Lena Leads');

    await page.locator('.sidebar').getByRole('link', { name: 'Leads', exact: true }).click();
    await page.locator('#leads-empty').filter({ hasText: 'No leads yet.' }).waitFor();
    await page.locator('#leads-new').click();
    await page.getByLabel('Name', { exact: true }).fill('Hedy Lamarr');
    await page.getByLabel('Phone').fill('+1 415 555 0606');
    await page.getByLabel('E-mail').fill('hedy@example.com');
    await page.getByLabel('Tags').fill('radio, patents');
    await page.getByRole('button', { name: 'Add the lead' }).click();
    await page.waitForURL(/\/dashboard\/leads\/lead_[0-9A-Za-z]+$/);
    await page.getByRole('status').filter({ hasText: 'Lead added.' }).waitFor();
    const leadId = new URL(page.url()).pathname.split('/').at(-1) as string;
    assert.equal(await page.locator('h1').textContent(), 'Hedy Lamarr');

    await page.getByLabel('Add a note').fill('Interested in frequency hopping.');
    await page.getByRole('button', { name: 'Add the note' }).click();
    await page.getByRole('status').filter({ hasText: 'Note added.' }).waitFor();
    await page.locator('#lead-notes').filter({ hasText: 'Interested in frequency hopping.' }).waitFor();

    await page.getByLabel('Enroll in a sequence').selectOption(sequence.id);
    await page.locator('#lead-enroll').click();
    await page.getByRole('status').filter({ hasText: 'Enrolled in the sequence.' }).waitFor();
    await page.locator('#lead-enrollments-table').getByRole('link', { name: 'Spring follow-up' }).waitFor();
    assert.equal(await page.locator('#lead-enrollments-table .badge').textContent(), 'active');

    // Two more leads, enrolled from the list: check their boxes, choose the sequence, enroll.
    const others = await Promise.all(
      ['Ada', 'Grace'].map((name) =>
        app.platform.leads.deps.bus.call(leadsRpc.createLead, identity, { name, tags: [], custom_fields: {} }),
      ),
    );
    await page.goto('/dashboard/leads');
    for (const lead of others) await page.getByLabel(`Choose ${lead.name}`).check();
    await page.locator('#leads-enroll-sequence').selectOption(sequence.id);
    await page.locator('#leads-enroll').click();
    await page.getByRole('status').filter({ hasText: 'The chosen leads are enrolled in the sequence.' }).waitFor();
    const enrolled = await app.platform.leads.deps.bus.call(leadsRpc.listEnrollments, identity, { sequence_id: sequence.id, limit: 10 });
    assert.deepEqual(enrolled.data.map((enrollment) => enrollment.lead_id).sort(), [leadId, ...others.map((lead) => lead.id)].sort());

    await page.goto(`/dashboard/leads/${leadId}`);
    await page.locator('#lead-delete').click();
    await page.locator('h1').filter({ hasText: 'Delete Hedy Lamarr?' }).waitFor();
    await page.locator('#lead-delete-confirm').click();
    await page.waitForURL(/\/dashboard\/leads$/);
    await page.getByRole('status').filter({ hasText: 'Lead deleted.' }).waitFor();
    assert.equal(await page.locator(`#row-${leadId}`).count(), 0);
    assert.equal((await page.goto(`/dashboard/leads/${leadId}`))?.status(), 404);
    assert.deepEqual(refused, [], 'nothing was refused by the Content-Security-Policy');
  });
});
