// Test mode in headless Chromium, through the gateway: a person turns the "Test data" switch on, sees the
// banner, creates a vk_test_ key, sees the calls it queues on the calls page (and not in live mode); the
// test-mode page passes axe-core in light and dark, at 1280 and 375 px, without scrolling sideways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { looks, problemsIn } from './support/accessibility.js';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, keysPath, uniqueEmail } from './support/journey.js';

describe('test mode in a browser', () => {
  let app: ConsoleInBrowser;
  const steps = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(() => app?.close());
  const { openBrowser, acceptInvitation, createKey } = steps;

  test('the switch on: the banner on every page, a vk_test_ key, its calls on the calls page in test mode only; axe-clean in every look', async () => {
    const { orgId } = await app.platform.org({ plan: 'pro' });
    // axe's injected script needs a context that bypasses the policy (support/axe.ts); the pages are the same.
    const owner = await openBrowser({ bypassCSP: true });
    const { page } = owner;
    await acceptInvitation(page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Olivia Owner');

    const toggle = page.getByRole('switch', { name: 'Test data' });
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    assert.equal(await page.locator('#test-mode-banner').count(), 0);
    // By keyboard: focus shows, Enter presses it.
    await toggle.focus();
    assert.equal(await toggle.evaluate((element) => element.matches(':focus-visible')), true);
    await page.keyboard.press('Enter');
    await page.locator('#test-mode-banner').waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Test data' }).getAttribute('aria-checked'), 'true');
    assert.match((await page.getByRole('region', { name: 'Test mode' }).textContent()) ?? '', /you are viewing test data/);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(keysPath);
    await page.locator('#test-mode-banner').waitFor();
    const key = await createKey(page, 'Browser test key', 'read-write');
    assert.match(key, /^vk_test_[0-9A-Za-z]{38}$/);
    assert.match((await page.locator('#test-keys-note').textContent()) ?? '', /vk_test_/);

    const queued = await fetch(`${app.url}/api/v1/phone/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550171' }),
    });
    assert.equal(queued.status, 201, await queued.clone().text());
    const callId = ((await queued.json()) as { id: string }).id;

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Calls' }).click();
    await page.waitForURL(/\/dashboard\/calls$/);
    await page.locator(`#row-${callId}`).waitFor();

    // Every look of the test-mode calls page, the banner included: no serious or critical violations, no sideways scroll.
    const problems: string[] = [];
    for (const look of looks) {
      problems.push(...(await problemsIn(page, look)));
      assert.ok(await page.getByRole('button', { name: 'View live data' }).isVisible(), `${look.name}: the way back is in view`);
    }
    assert.deepEqual(problems, []);

    // Back to live data from the banner: the test call is not there, the banner gone, the switch off.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'View live data' }).click();
    await page.waitForURL(/\/dashboard\/calls$/);
    await page.getByRole('switch', { name: 'Test data', checked: false }).waitFor();
    assert.equal(await page.locator('#test-mode-banner').count(), 0);
    assert.equal(await page.locator(`#row-${callId}`).count(), 0);
  });
});
