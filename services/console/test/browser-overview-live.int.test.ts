// The overview follows the platform in headless Chromium, through the gateway, under the console's
// Content-Security-Policy: an owner has today's overview open; a call queued with the organization's API
// key is played out by telephony's sandbox carrier; the figures, the outcomes and the newest calls move to it
// without a reload (static/live.js re-reads the regions on the call's events), and the change is announced.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

describe('the overview, live, in a browser', () => {
  let app: ConsoleInBrowser;
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(async () => {
    await app?.close();
  });

  test('a call queued through the API key and completed by the sandbox carrier moves the open overview’s counts', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    const owner = await openBrowser();
    const refused: string[] = [];
    owner.page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await acceptInvitation(owner.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Otto Overview');
    await owner.page.goto('/dashboard?period=today');
    await owner.page.locator('html[data-live-state="open"]').waitFor();
    const callsFigure = owner.page.locator('#overview-calls .card-figure');
    assert.equal(await callsFigure.textContent(), '0');
    await owner.page.locator('#overview-empty').waitFor();
    // A mark on this document: a reload would make a new one without it.
    await owner.page.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });

    const queued = await fetch(`${app.url}/api/v1/phone/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550177', metadata: { sandbox_status: 'completed', sandbox_outcome: 'booked' } }),
    });
    const answer = await queued.text();
    assert.equal(queued.status, 201, answer);
    const call = JSON.parse(answer) as { id: string };

    // The call's row reaches "completed" with its outcome; the figures and the outcome breakdown count it.
    const row = owner.page.locator('#overview-latest-calls').getByRole('row').filter({ hasText: 'completed' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Booked/);
    assert.equal(await row.getByRole('link').getAttribute('href'), `/dashboard/calls/${call.id}`);
    await owner.page.locator('#overview-calls .card-figure').filter({ hasText: /^1$/ }).waitFor();
    await owner.page.locator('#overview-answer-rate .card-figure').filter({ hasText: '100%' }).waitFor();
    const booked = owner.page.locator('#overview-outcomes').getByRole('row').filter({ hasText: 'Booked' });
    await booked.getByRole('link', { name: '1', exact: true }).waitFor();
    assert.equal(await owner.page.locator('#overview-empty').count(), 0, 'the empty state gave way to the chart');
    assert.equal(await owner.page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded), true, 'no reload');
    await owner.page
      .locator('#live-announcer')
      .filter({ hasText: /Figures/ })
      .waitFor();
    assert.deepEqual(refused, [], 'the script runs under the strict policy');
    await owner.context.close();
  });
});
