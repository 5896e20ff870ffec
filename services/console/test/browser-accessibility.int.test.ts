// An accessibility check (axe-core) of every console page in headless Chromium, which also takes the
// README's screenshots when asked.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Receiver, startReceiver } from '@voice/kit/testing';
import type { Page } from 'playwright-core';
import { blockingViolations, describeViolations } from './support/axe.js';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps } from './support/journey.js';

/** `CONSOLE_SCREENSHOTS=1 npm test -- browser-accessibility` refreshes the README's pictures; CI leaves the tree alone. */
const screenshotDir = process.env.CONSOLE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : null;

describe('every console page in a browser', () => {
  let app: ConsoleInBrowser;
  let receiver: Receiver;
  const steps = browserSteps(() => app);

  before(async () => {
    receiver = await startReceiver(() => 200);
    app = await startConsoleInBrowser();
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });
  const { openBrowser, acceptInvitation, createKey, callsWith, reloadUntil, usageToday } = steps;
  /** The key the owner creates on the way (its calls fill the usage page and the audit log). */
  let ownerKey = '';
  const apiKeysCalls = 3;
  /** The page of the endpoint the owner adds on the way (its URL is the receiver's). */
  async function openEndpoint(page: Page): Promise<void> {
    await page.goto('/dashboard/webhooks');
    await page.getByRole('link', { name: receiver.url }).click();
    await page.locator('#webhook-status').waitFor();
  }

  /**
   * Every page of the console a person can reach, checked with axe and (when asked) photographed. `open`
   * is an address, or the steps that reach a page only a form leads to. A new page is one more line.
   */
  const consolePages: Array<{
    name: string;
    as: 'visitor' | 'owner' | 'member' | 'lite';
    open: string | ((page: Page, orgId: string) => Promise<void>);
    screenshot?: boolean;
  }> = [
    { name: 'sign-in', as: 'visitor', open: '/dashboard/sign-in', screenshot: true },
    {
      name: 'sign-in-refused',
      as: 'visitor',
      open: async (page) => {
        await page.goto('/dashboard/sign-in');
        await page.getByLabel('E-mail address').fill('nobody@example.com');
        await page.getByLabel('Password').fill('not the password at all');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').waitFor();
      },
    },
    {
      name: 'invitation',
      as: 'visitor',
      open: async (page, orgId) => {
        await page.goto(await app.invitationLink(orgId, 'ada@example.com', 'admin'));
      },
      screenshot: true,
    },
    { name: 'invitation-unknown', as: 'visitor', open: '/dashboard/invitations/not-a-real-invitation-token' },
    { name: 'home', as: 'owner', open: '/dashboard', screenshot: true },
    { name: 'members', as: 'owner', open: '/dashboard/members', screenshot: true },
    {
      name: 'invitation-created',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/members');
        await page.getByLabel('E-mail address').fill('grace@example.com');
        await page.getByRole('button', { name: 'Create invitation link' }).click();
        await page.getByRole('heading', { name: 'Invitation created' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'members-as-member', as: 'member', open: '/dashboard/members', screenshot: true },
    {
      name: 'invitation-existing-account',
      as: 'visitor',
      open: async (page, orgId) => {
        // Olivia already has an account: the page asks for its password instead of a new one.
        await page.goto(await app.invitationLink(orgId, 'olivia@example.com', 'admin'));
        await page.getByText('You already have an account').waitFor();
      },
    },
    { name: 'sign-in-signed-out', as: 'visitor', open: '/dashboard/sign-in?signed_out' },
    {
      name: 'api-key-created',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/settings/api');
        ownerKey = await createKey(page, 'Billing sync', 'read-write');
      },
      screenshot: true,
    },
    { name: 'api-keys', as: 'owner', open: '/dashboard/settings/api', screenshot: true },
    {
      name: 'api-key-rotated',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/settings/api');
        await createKey(page, 'Nightly export', 'read');
        await page.goto('/dashboard/settings/api');
        await page.getByRole('button', { name: 'Rotate Nightly export' }).click();
        await page.getByRole('heading', { name: 'Key rotated' }).waitFor();
      },
    },
    {
      name: 'api-key-revoke',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/settings/api');
        await page.getByRole('link', { name: 'Revoke Billing sync' }).first().click();
        await page.getByRole('heading', { name: 'Revoke key Billing sync' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'api-keys-as-member', as: 'member', open: '/dashboard/settings/api', screenshot: true },
    {
      name: 'usage',
      as: 'owner',
      open: async (page) => {
        // A few calls with the owner's key, so the chart and the tables have something to show.
        for (let call = 0; call < apiKeysCalls; call++) assert.equal((await callsWith(ownerKey)).status, 200);
        await reloadUntil(
          page,
          '/dashboard/usage',
          'the calls in the usage page',
          async () => (await usageToday(page, 'Billing sync')) === apiKeysCalls,
        );
      },
      screenshot: true,
    },
    { name: 'usage-as-member', as: 'member', open: '/dashboard/usage' },
    { name: 'audit-log', as: 'owner', open: '/dashboard/audit-log', screenshot: true },
    { name: 'audit-log-filtered', as: 'member', open: '/dashboard/audit-log?actor_type=key&status_class=2xx&path_prefix=%2Fapi%2Fv1' },
    { name: 'audit-log-bad-filter', as: 'owner', open: '/dashboard/audit-log?from=not-a-date' },
    { name: 'webhooks-empty', as: 'owner', open: '/dashboard/webhooks' },
    {
      name: 'webhook-created',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/webhooks');
        await page.getByLabel('URL').fill(receiver.url);
        await page.getByLabel('Description (optional)').fill('Our CRM');
        await page.locator('#webhook-create').click();
        await page.locator('#webhook-secret').waitFor();
      },
    },
    { name: 'webhooks', as: 'owner', open: '/dashboard/webhooks', screenshot: true },
    {
      name: 'webhook',
      as: 'owner',
      open: async (page) => {
        await openEndpoint(page);
        await page.locator('#webhook-test').click();
        await page.locator('#webhook-status').waitFor();
        // The test event's delivery is in the log at once; its attempt follows, so reload until it is answered.
        const endpoint = new URL(page.url()).pathname;
        await reloadUntil(page, endpoint, 'the test delivery answered', async () => (await page.getByText('HTTP 200').count()) > 0);
      },
      screenshot: true,
    },
    {
      name: 'webhook-delete',
      as: 'owner',
      open: async (page) => {
        await openEndpoint(page);
        await page.locator('#webhook-delete').click();
        await page.locator('#webhook-delete-confirm').waitFor();
      },
    },
    { name: 'webhooks-as-member', as: 'member', open: '/dashboard/webhooks' },
    { name: 'webhooks-lite', as: 'lite', open: '/dashboard/webhooks' },
    { name: 'api-keys-lite', as: 'lite', open: '/dashboard/settings/api' },
    { name: 'forbidden', as: 'member', open: '/dashboard/webhooks/no-such-endpoint/delete' },
    { name: 'not-found', as: 'owner', open: '/dashboard/no-such-page', screenshot: true },
  ];

  test('every page has no serious or critical accessibility violations (axe-core)', async () => {
    // An organization the gateway knows (on a plan with read-write keys), for the API keys pages.
    const { orgId } = await app.platform.org({ plan: 'pro' });
    // Contexts that let axe's injected script run (see support/axe.ts); used for nothing else. The people
    // accept their invitations here, so the screenshots show names a reader can follow.
    const browsers = {
      visitor: await openBrowser({ bypassCSP: true }),
      owner: await openBrowser({ bypassCSP: true }),
      member: await openBrowser({ bypassCSP: true }),
      lite: await openBrowser({ bypassCSP: true }),
    };
    await acceptInvitation(browsers.owner.page, await app.invitationLink(orgId, 'olivia@example.com', 'owner'), 'Olivia Owner');
    await acceptInvitation(browsers.member.page, await app.invitationLink(orgId, 'max@example.com', 'member'), 'Max Member');
    // The owner of a Lite organization: no webhooks (the reason instead of the forms), read-only keys.
    const lite = (await app.platform.gateway.admin({ kind: 'org.create', name: 'Small shop', plan: 'lite' })) as { id: string };
    await acceptInvitation(browsers.lite.page, await app.invitationLink(lite.id, 'lena@example.com', 'owner'), 'Lena Lite');
    if (screenshotDir) await mkdir(screenshotDir, { recursive: true });

    const failures: string[] = [];
    for (const consolePage of consolePages) {
      const { page } = browsers[consolePage.as];
      if (typeof consolePage.open === 'string') await page.goto(consolePage.open);
      else await consolePage.open(page, orgId);
      const violations = await blockingViolations(page);
      if (violations.length > 0) failures.push(`${consolePage.name} (${page.url()}):\n  ${describeViolations(violations)}`);
      if (screenshotDir && consolePage.screenshot)
        await page.screenshot({ path: `${screenshotDir}${consolePage.name}.png`, fullPage: true });
    }
    assert.deepEqual(failures, [], `accessibility violations:\n${failures.join('\n')}`);

    // The check itself sees violations when there are some: an unlabelled field and an image without text.
    const { page } = browsers.visitor;
    await page.setContent('<!doctype html><html lang="en"><title>t</title><main><img src="x.png"><input type="text"></main></html>');
    const control = (await blockingViolations(page)).map((violation) => violation.id).sort();
    assert.deepEqual(control, ['image-alt', 'label']);
  });
});
