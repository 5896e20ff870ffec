// Billing in a real browser (headless Chromium, through the gateway, the console's Content-Security-Policy
// enforced): an owner drafts an invoice for a lead from the console's form, edits the draft, and sends it after
// the confirmation page that says what goes out and to whom; the webhook endpoint's delivery log shows
// `invoice.sent`, and the audit log shows the person as the actor of each change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Receiver, startReceiver, testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { allEventsEndpoint } from './support/delivery-log.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

describe('billing in a browser', () => {
  let app: ConsoleInBrowser;
  let receiver: Receiver;
  const { openBrowser, acceptInvitation, reloadUntil } = browserSteps(() => app);

  before(async () => {
    receiver = await startReceiver(() => 200);
    app = await startConsoleInBrowser();
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });

  test('draft an invoice for a lead, edit it, send it after the confirmation page; the delivery log shows invoice.sent and the audit log the person', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    const endpoint = await allEventsEndpoint(app.platform, key, receiver.url);
    // The lead, made through the leads service's own operation (as the API or an agent would make it).
    const lead = await app.platform.leads.deps.bus.call(leadsRpc.createLead, testIdentity({ org_id: orgId }), {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+14155550142',
    });
    const email = uniqueEmail('owner');
    const person = await openBrowser();
    const refused: string[] = [];
    person.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const { page } = person;
    await acceptInvitation(page, await app.invitationLink(orgId, email, 'owner'), 'Olga Owner');
    const userId = (await app.platform.console.deps.prisma.user.findUniqueOrThrow({ where: { email } })).id;

    // Billing in the sidebar, then the draft form with the lead chosen by its address.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Billing' }).click();
    await page.locator('#invoices-empty').waitFor();
    await page.goto(`/dashboard/invoices/new?lead_id=${lead.id}`);
    assert.equal(await page.getByLabel('Lead id (the customer)').inputValue(), lead.id);
    const line = page.locator('#line-0');
    await line.getByLabel('Description').fill('Voice agent setup');
    await line.getByLabel('Quantity').fill('2');
    await line.getByLabel('Unit price (USD)').fill('150');
    await line.getByLabel('Tax rate (%)').fill('10');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.waitForURL(/\/dashboard\/invoices\/inv_[0-9A-Za-z]+$/);
    const invoiceId = new URL(page.url()).pathname.split('/').at(-1) as string;
    await page.getByRole('status').filter({ hasText: 'Invoice drafted.' }).waitFor();
    assert.equal(await page.locator('#invoice-total').textContent(), '$330.00');

    // Edit: a second line, through "Add more rows" first (the form again, with more rows, nothing saved).
    await page.locator('#invoice-edit').click();
    await page.getByRole('button', { name: 'Add more rows' }).click();
    assert.ok((await page.locator('fieldset.line-row').count()) >= 10, 'more rows, without JavaScript');
    const second = page.locator('#line-1');
    await second.getByLabel('Description').fill('Monthly support');
    await second.getByLabel('Unit price (USD)').fill('49.99');
    await page.getByRole('button', { name: 'Save the draft' }).click();
    await page.waitForURL(new RegExp(`/dashboard/invoices/${invoiceId}$`));
    await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor();
    assert.equal(await page.locator('#invoice-total').textContent(), '$379.99');

    // Send: the confirmation shows the customer, the lines and where the event goes; the click sends it.
    await page.locator('#invoice-send').click();
    const confirmation = page.locator('.confirm');
    await confirmation.getByRole('heading', { name: `Send the invoice ${invoiceId} for $379.99?` }).waitFor();
    const shown = (await confirmation.textContent()) ?? '';
    for (const fact of ['Ada Lovelace', 'ada@example.com', '+1 415 555 0142', 'Voice agent setup', 'Monthly support', receiver.url]) {
      assert.ok(shown.includes(fact), `the confirmation shows ${fact}`);
    }
    await page.getByRole('button', { name: 'Send the invoice' }).click();
    await page.getByRole('status').filter({ hasText: 'Invoice sent.' }).waitFor();
    assert.equal(await page.locator('#invoice-status').textContent(), 'sent');
    assert.equal(await page.locator('#invoice-send').count(), 0, 'sent once: no more Send');

    // The endpoint's delivery log in the console shows invoice.sent.
    const sentRows = page.locator('table tbody tr').filter({ hasText: 'invoice.sent' });
    await reloadUntil(
      page,
      `/dashboard/webhooks/${endpoint.id}`,
      'invoice.sent in the delivery log',
      async () => (await sentRows.count()) > 0,
    );
    assert.equal(await sentRows.count(), 1);
    assert.ok(receiver.requests.some((request) => request.body.includes('"invoice.sent"') && request.body.includes(invoiceId)));

    // The audit log: the draft, the save and the send, each with the person as actor.
    const audit = `/dashboard/audit-log?actor_type=user&path_prefix=${encodeURIComponent('/dashboard/invoices')}`;
    const rows = page.locator('#audit-records tbody tr');
    await reloadUntil(page, audit, 'the three changes in the audit log', async () => (await rows.count()) >= 3);
    const recorded = (await rows.allTextContents()).map((text) => text.replace(/\s+/g, ' '));
    for (const path of ['/dashboard/invoices ', `/dashboard/invoices/${invoiceId} `, `/dashboard/invoices/${invoiceId}/send `]) {
      assert.ok(
        recorded.some((row) => row.includes(`user ${userId} POST ${path}`)),
        `the audit log shows ${path.trim()} by the person: ${recorded.join(' | ')}`,
      );
    }
    assert.deepEqual(refused, [], 'the pages run under the strict policy');
    await person.context.close();
  });
});
