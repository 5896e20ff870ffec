// A live region in headless Chromium, through the gateway, with the console's Content-Security-Policy
// enforced: an owner has the approvals list open; an agent asks to delete its lead; the new approval appears
// in the list without a reload (static/live.js re-reads the region on the `approval.requested` event), and
// the change is announced politely.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Agent, type ApprovalsPlatform, connectAgent, startApprovalsInBrowser } from './support/approvals.js';
import type { ConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

describe('live regions in a browser', () => {
  let app: ConsoleInBrowser<'console' | 'webhooks'> & { platform: ApprovalsPlatform };
  let agent: Agent | undefined;
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    app = await startApprovalsInBrowser();
  });
  after(async () => {
    await agent?.close();
    await app?.close();
  });

  test('a new approval appears in the open approvals list without a reload, and is announced', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    const owner = await openBrowser();
    const refused: string[] = [];
    owner.page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await acceptInvitation(owner.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Lena Live');
    // No chat is linked: the console is the channel that is always there.
    await owner.page.goto('/dashboard/approvals');
    await owner.page.locator('html[data-live-state="open"]').waitFor();
    // A mark on this document: a reload would make a new one without it.
    await owner.page.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });

    agent = await connectAgent(app.url, key);
    const { leadId, approvalId } = await agent.askToDeleteLead();

    const row = owner.page.locator('#approvals-live').getByRole('row').filter({ hasText: leadId });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /pending/);
    assert.equal(await row.getByRole('link').getAttribute('href'), `/dashboard/approvals/${approvalId}`);
    assert.equal(await owner.page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded), true, 'no reload');
    await owner.page.locator('#live-announcer').filter({ hasText: 'Approvals updated.' }).waitFor();
    assert.equal(await owner.page.locator('#live-announcer').getAttribute('aria-live'), 'polite');
    assert.deepEqual(refused, [], 'the script runs under the strict policy');
    await owner.context.close();
  });
});
