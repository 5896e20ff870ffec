// The journey across the sales pages in a real browser (headless Chromium, through the gateway, the
// console's Content-Security-Policy enforced): a person creates a lead, adds a note, enrolls it in a
// sequence, drafts an invoice for it from its page and sends it after the confirmation page; the webhook
// endpoint's delivery log in the console shows lead.created, enrollment.started and invoice.sent, and the
// audit log shows the person as the actor of each change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Receiver, startReceiver, testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { allEventsEndpoint } from './support/delivery-log.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

describe('a lead from creation to a sent invoice, in a browser', () => {
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

  test('create a lead, add a note, enroll it, draft and send its invoice; the delivery log and the audit log show each step', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    const endpoint = await allEventsEndpoint(app.platform, key, receiver.url);
    // A sequence whose first step waits, so the enrollment stays active while the test looks at it.
    const sequence = await app.platform.leads.deps.bus.call(leadsRpc.createSequence, testIdentity({ org_id: orgId }), {
      name: 'Quote follow-up',
      steps: [{ type: 'wait', delay_seconds: 30 * 86_400 }],
    });
    const email = uniqueEmail('owner');
    const person = await openBrowser();
    const refused: string[] = [];
    person.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const { page } = person;
    await acceptInvitation(page, await app.invitationLink(orgId, email, 'owner'), 'Sam Seller');
    const userId = (await app.platform.console.deps.prisma.user.findUniqueOrThrow({ where: { email } })).id;

    // The lead, from the form.
    await page.locator('.sidebar').getByRole('link', { name: 'Leads', exact: true }).click();
    await page.locator('#leads-new').click();
    await page.getByLabel('Name', { exact: true }).fill('Grace Hopper');
    await page.getByLabel('Phone').fill('+1 415 555 0199');
    await page.getByLabel('E-mail').fill('grace@example.com');
    await page.getByRole('button', { name: 'Add the lead' }).click();
    await page.waitForURL(/\/dashboard\/leads\/lead_[0-9A-Za-z]+$/);
    const leadId = new URL(page.url()).pathname.split('/').at(-1) as string;

    // A note, then the enrollment, both on the lead's page.
    await page.getByLabel('Add a note').fill('Wants a quote for two agents.');
    await page.getByRole('button', { name: 'Add the note' }).click();
    await page.locator('#lead-notes').filter({ hasText: 'Wants a quote for two agents.' }).waitFor();
    await page.getByLabel('Enroll in a sequence').selectOption(sequence.id);
    await page.locator('#lead-enroll').click();
    await page.getByRole('status').filter({ hasText: 'Enrolled in the sequence.' }).waitFor();

    // The invoice, drafted from the lead's page (the lead is preset), then sent after its confirmation.
    await page.locator('#lead-draft-invoice').click();
    assert.equal(await page.getByLabel('Lead id (the customer)').inputValue(), leadId);
    const line = page.locator('#line-0');
    await line.getByLabel('Description').fill('Two voice agents, first month');
    await line.getByLabel('Unit price (USD)').fill('400');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.waitForURL(/\/dashboard\/invoices\/inv_[0-9A-Za-z]+$/);
    const invoiceId = new URL(page.url()).pathname.split('/').at(-1) as string;
    await page.locator('#invoice-send').click();
    const confirmation = (await page.locator('.confirm').textContent()) ?? '';
    for (const fact of ['Grace Hopper', 'grace@example.com', 'Two voice agents, first month', receiver.url]) {
      assert.ok(confirmation.includes(fact), `the confirmation shows ${fact}`);
    }
    await page.getByRole('button', { name: 'Send the invoice' }).click();
    await page.getByRole('status').filter({ hasText: 'Invoice sent.' }).waitFor();

    // The endpoint's delivery log shows the three events, each once.
    const log = page.locator('table tbody tr');
    const events = ['lead.created', 'enrollment.started', 'invoice.sent'];
    await reloadUntil(page, `/dashboard/webhooks/${endpoint.id}`, 'the three events in the delivery log', async () => {
      const rows = await log.allTextContents();
      return events.every((type) => rows.some((row) => row.includes(type)));
    });
    const delivered = receiver.requests.map((request) => request.body);
    assert.ok(delivered.some((body) => body.includes('"lead.created"') && body.includes(leadId)));
    assert.ok(delivered.some((body) => body.includes('"enrollment.started"') && body.includes(leadId)));
    assert.ok(delivered.some((body) => body.includes('"invoice.sent"') && body.includes(invoiceId)));

    // The audit log: the lead, its note, its enrollment, the draft and the send, each with the person as actor.
    const rows = page.locator('#audit-records tbody tr');
    await reloadUntil(page, '/dashboard/audit-log?actor_type=user', 'the changes in the audit log', async () => (await rows.count()) >= 5);
    const recorded = (await rows.allTextContents()).map((text) => text.replace(/\s+/g, ' '));
    for (const path of [
      '/dashboard/leads ',
      `/dashboard/leads/${leadId}/notes `,
      `/dashboard/leads/${leadId}/enroll `,
      '/dashboard/invoices ',
      `/dashboard/invoices/${invoiceId}/send `,
    ]) {
      assert.ok(
        recorded.some((row) => row.includes(`user ${userId} POST ${path}`)),
        `the audit log shows ${path.trim()} by the person: ${recorded.join(' | ')}`,
      );
    }
    assert.deepEqual(refused, [], 'the pages run under the strict policy');
    await person.context.close();
  });
});
