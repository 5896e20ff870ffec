// An accessibility check (axe-core) of every console page in headless Chromium, in every look (light and dark,
// 1280 and 375 px wide): each page is opened once and looked at four times, so a part's records are made once
// and its file starts one platform. The pages come in parts, a file each, so each file stays well within the
// test runner's per-file time limit and two run side by side. The light desktop look also takes the README's
// screenshots when asked.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { newId } from '@voice/kit';
import { type Receiver, startReceiver, testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import type { Page } from 'playwright-core';
import { hashToken, newToken } from '../../src/domain/tokens.js';
import { blockingViolations, describeViolations } from './axe.js';
import { type ConsoleInBrowser, startConsoleInBrowser } from './browser.js';
import { browserSteps } from './journey.js';

/**
 * How a page is looked at: the console follows `prefers-color-scheme`, and on a 375 px phone nothing may scroll
 * sideways (tables scroll inside their own box).
 */
export interface Look {
  name: 'light' | 'dark' | 'light-375' | 'dark-375';
  colorScheme: 'light' | 'dark';
  width: 1280 | 375;
}

/** The four looks every page is checked in, the desktop light one (the screenshots') first. */
export const looks: readonly Look[] = [
  { name: 'light', colorScheme: 'light', width: 1280 },
  { name: 'dark', colorScheme: 'dark', width: 1280 },
  { name: 'light-375', colorScheme: 'light', width: 375 },
  { name: 'dark-375', colorScheme: 'dark', width: 375 },
];

/** The page's blocking violations in one look, and on a phone whether it scrolls sideways. */
export async function problemsIn(page: Page, look: Look): Promise<string[]> {
  await page.emulateMedia({ colorScheme: look.colorScheme });
  await page.setViewportSize({ width: look.width, height: 800 });
  const problems: string[] = [];
  const violations = await blockingViolations(page);
  if (violations.length > 0) problems.push(`${look.name}: ${describeViolations(violations)}`);
  if (look.width === 375) {
    const scrollWidth = await page.evaluate(
      () => (globalThis as unknown as { document: { scrollingElement: { scrollWidth: number } } }).document.scrollingElement.scrollWidth,
    );
    if (scrollWidth > 375) problems.push(`${look.name}: scrolls sideways, ${scrollWidth} px wide`);
  }
  return problems;
}

/** `CONSOLE_SCREENS_DIR=/some/dir` photographs the pages marked `screenshot` in each look, to judge the design. */
const screensDir = process.env.CONSOLE_SCREENS_DIR;

/**
 * The pages are checked in parts, a test file each: `core` (signing in, the overview, members, keys, usage, the
 * audit log, webhooks, settings and the account), `phone` (calls, messages, do-not-call), `product` (sequences,
 * workspaces, knowledge, brand score) and `sales` (leads, billing). A page names its part; the ones that do not
 * are `core`. A part's pages make their own records, so a part needs no other's.
 */
export type PagesPart = 'core' | 'phone' | 'product' | 'sales';

/** Registers, in the caller's `describe`, the tests of a part's pages (the caller's file names the suite, so the runner's file times do too). */
export function checkEveryPage(part: PagesPart): void {
  /** `CONSOLE_SCREENSHOTS=1 npm test -- browser-accessibility` refreshes the README's pictures (light, desktop); CI leaves the tree alone. */
  const screenshotDir = process.env.CONSOLE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : null;

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
    part?: PagesPart;
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
    // A new organization's overview: no calls yet, what to do next.
    { name: 'overview-empty', as: 'owner', open: '/dashboard', screenshot: true },
    { name: 'calls-empty', as: 'owner', part: 'phone', open: '/dashboard/calls' },
    {
      name: 'call-queue-refused',
      as: 'owner',
      part: 'phone',
      open: async (page) => {
        await page.goto('/dashboard/calls/new');
        await page.getByLabel('Number to call').fill('0415 555');
        await page.getByRole('button', { name: 'Queue the call' }).click();
        await page.locator('#call-to-error').waitFor();
      },
    },
    {
      name: 'call',
      as: 'owner',
      part: 'phone',
      open: async (page) => {
        // Queued from the form; the sandbox plays it out at the tests' time scale, so the page shows it completed.
        await page.goto('/dashboard/calls/new');
        await page.getByLabel('Number to call').fill('+14155550123');
        await page.getByRole('button', { name: 'Queue the call' }).click();
        await page.waitForURL(/\/dashboard\/calls\/call_/);
        const path = new URL(page.url()).pathname;
        await reloadUntil(page, path, 'the call to end', async () => (await page.locator('#call-timeline li').count()) >= 3);
      },
      screenshot: true,
    },
    { name: 'calls', as: 'owner', part: 'phone', open: '/dashboard/calls', screenshot: true },
    { name: 'calls-filtered', as: 'member', part: 'phone', open: '/dashboard/calls?direction=outbound&status=completed&number=555' },
    {
      name: 'call-cancel',
      as: 'owner',
      part: 'phone',
      open: async (page, orgId) => {
        // A call the dialer has not placed yet (inserted as queued, with no dial job), to cancel.
        const id = newId('call');
        await app.platform.telephony.deps.prisma.call.create({
          data: {
            id,
            orgId,
            direction: 'outbound',
            fromNumber: '+15005550006',
            toNumber: '+14155550124',
            status: 'queued',
            source: 'api',
          },
        });
        await page.goto(`/dashboard/calls/${id}`);
        await page.locator('#call-cancel').click();
        await page.locator('#call-cancel-confirm').waitFor();
      },
      screenshot: true,
    },
    { name: 'calls-as-member', as: 'member', part: 'phone', open: '/dashboard/calls' },
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
    {
      name: 'overview',
      as: 'owner',
      open: async (page) => {
        // A call queued with the owner's key (the sandbox carrier plays it out), so the figures, the chart,
        // the outcomes and the newest calls have something to show.
        const queued = await fetch(`${app.url}/api/v1/phone/calls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to: '+14155550188', metadata: { sandbox_status: 'completed', sandbox_outcome: 'booked' } }),
        });
        assert.equal(queued.status, 201, await queued.text());
        await reloadUntil(
          page,
          '/dashboard?period=today',
          'the completed call in the overview',
          async () => (await page.locator('#overview-latest-calls').getByText('completed').count()) > 0,
        );
      },
      screenshot: true,
    },
    { name: 'overview-30-days-as-member', as: 'member', open: '/dashboard?period=30d', screenshot: true },
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
    // Messages and do-not-call: an empty list, a send refused on its field, a message sent (its conversation),
    // the list with it, filtered, refused; the do-not-call list empty, with a number added, checked, removed.
    { name: 'messages-empty', as: 'owner', part: 'phone', open: '/dashboard/messages' },
    {
      name: 'message-new-refused',
      as: 'owner',
      part: 'phone',
      open: async (page) => {
        await page.goto('/dashboard/messages/new');
        await page.getByLabel('To', { exact: true }).fill('555-0123');
        await page.getByLabel('Message', { exact: true }).fill('Your appointment is confirmed for Tuesday at 10.');
        await page.locator('#message-send').click();
        await page.locator('#message-to-error').waitFor();
      },
    },
    {
      name: 'conversation',
      as: 'owner',
      part: 'phone',
      open: async (page) => {
        await page.goto('/dashboard/messages/new?to=%2B14155550123');
        await page.getByLabel('Message', { exact: true }).fill('Your appointment is confirmed for Tuesday at 10. Reply here to change it.');
        await page.locator('#message-send').click();
        await page.getByRole('status').filter({ hasText: 'Message queued for sending.' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'messages', as: 'owner', part: 'phone', open: '/dashboard/messages', screenshot: true },
    { name: 'messages-filtered', as: 'member', part: 'phone', open: '/dashboard/messages?direction=outbound&from=2020-01-01' },
    { name: 'messages-bad-filter', as: 'owner', part: 'phone', open: '/dashboard/messages?status=lost' },
    { name: 'conversation-as-member', as: 'member', part: 'phone', open: '/dashboard/messages/conversation?phone=%2B14155550123' },
    { name: 'do-not-call-empty', as: 'owner', part: 'phone', open: '/dashboard/do-not-call' },
    {
      name: 'do-not-call',
      as: 'owner',
      part: 'phone',
      open: async (page) => {
        await page.goto('/dashboard/do-not-call');
        await page.getByLabel('Number', { exact: true }).fill('+14155550199');
        await page.getByLabel('Block', { exact: true }).selectOption('sms');
        await page.getByLabel('Reason (optional)').fill('Asked not to be texted');
        await page.locator('#dnc-add').click();
        await page.getByRole('status').filter({ hasText: 'Number added to the do-not-call list.' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'do-not-call-check', as: 'owner', part: 'phone', open: '/dashboard/do-not-call/check?phone=%2B14155550199' },
    {
      name: 'do-not-call-remove',
      as: 'owner',
      part: 'phone',
      open: async (page) => {
        await page.goto('/dashboard/do-not-call');
        await page
          .locator('#dnc-entries')
          .getByRole('link', { name: /^Remove/ })
          .first()
          .click();
        await page.locator('#dnc-remove-confirm').waitFor();
      },
    },
    { name: 'do-not-call-as-member', as: 'member', part: 'phone', open: '/dashboard/do-not-call' },
    { name: 'do-not-call-check-as-member', as: 'member', part: 'phone', open: '/dashboard/do-not-call/check?phone=%2B14155550199' },
    { name: 'connected-apps', as: 'owner', open: '/dashboard/settings/connected-apps' },
    // Time zone, formats and the Sessions section (Sign out everywhere).
    { name: 'preferences', as: 'member', open: '/dashboard/settings/preferences', screenshot: true },
    {
      name: 'preferences-saved',
      as: 'owner',
      open: async (page) => {
        // A time zone of one's own, and the toast that says it was saved (carried through the redirect).
        await page.goto('/dashboard/settings/preferences');
        await page.getByLabel('Show times in').selectOption('Europe/Berlin');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByRole('status').filter({ hasText: 'Preferences saved.' }).waitFor();
      },
    },
    { name: 'api-keys-in-berlin', as: 'owner', open: '/dashboard/settings/api', screenshot: true },
    { name: 'forbidden', as: 'member', open: '/dashboard/webhooks/no-such-endpoint/delete' },
    { name: 'not-found', as: 'owner', open: '/dashboard/no-such-page', screenshot: true },
    // Sequences, workspaces and themes (made through leadsRpc, as an API key would): a sequence with a lead
    // enrolled through its form, an enroll refused on its field, the unenroll confirmation; a workspace, an
    // update refused on its field, the themes and a theme, the preview before applying one.
    { name: 'sequences-empty', as: 'owner', part: 'product', open: '/dashboard/sequences' },
    {
      name: 'sequence',
      as: 'owner',
      part: 'product',
      open: async (page, orgId) => {
        const identity = testIdentity({ org_id: orgId });
        const bus = app.platform.leads.deps.bus;
        const sequence = await bus.call(leadsRpc.createSequence, identity, {
          name: 'New lead follow-up',
          description: 'Call at once, text the next morning',
          steps: [
            { type: 'wait', delay_seconds: 90 * 86_400 },
            { type: 'call', delay_seconds: 0 },
            { type: 'sms', delay_seconds: 3_600, body: 'Hi {{first_name}}, thanks for your call. Reply to book a time.' },
          ],
        });
        const lead = await bus.call(leadsRpc.createLead, identity, { name: 'Ada Lovelace', phone: '+14155550123' });
        productPages.sequence = `/dashboard/sequences/${sequence.id}`;
        await page.goto(productPages.sequence);
        await page.getByLabel('Lead id').fill(lead.id);
        await page.locator('#enroll-submit').click();
        await page.getByRole('status').filter({ hasText: 'Lead enrolled.' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'sequences', as: 'owner', part: 'product', open: '/dashboard/sequences', screenshot: true },
    {
      name: 'sequence-enroll-refused',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto(productPages.sequence);
        await page.getByLabel('Lead id').fill('lead-42');
        await page.locator('#enroll-submit').click();
        await page.locator('#enroll-lead-error').waitFor();
      },
    },
    {
      name: 'sequence-unenroll',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto(productPages.sequence);
        await page
          .getByRole('link', { name: /^Unenroll…/ })
          .first()
          .click();
        await page.locator('#unenroll-confirm').waitFor();
      },
      screenshot: true,
    },
    { name: 'sequence-as-member', as: 'member', part: 'product', open: async (page) => void (await page.goto(productPages.sequence)) },
    { name: 'workspaces-empty', as: 'owner', part: 'product', open: '/dashboard/workspaces' },
    {
      name: 'workspace',
      as: 'owner',
      part: 'product',
      open: async (page, orgId) => {
        const identity = testIdentity({ org_id: orgId });
        const bus = app.platform.leads.deps.bus;
        const harbour = await bus.call(leadsRpc.createTheme, identity, {
          name: 'Harbour',
          greeting: 'Hello, you have reached the harbour office. How can I help?',
          tone: 'professional',
          colors: { primary: '#1F6FEB', accent: '#F59E0B', background: '#0B1020', text: '#F8FAFC' },
        });
        await bus.call(leadsRpc.createTheme, identity, {
          name: 'Meadow',
          greeting: 'Hi there! Thanks for calling.',
          colors: { primary: '#15803D', background: '#F0FDF4', text: '#052E16' },
          is_default: true,
        });
        const workspace = await bus.call(leadsRpc.createWorkspace, identity, {
          name: 'North office',
          timezone: 'America/New_York',
          phone_numbers: ['+14155550100', '+14155550101'],
          default_theme_id: harbour.id,
        });
        productPages.workspace = `/dashboard/workspaces/${workspace.id}`;
        productPages.theme = `/dashboard/workspaces/themes/${harbour.id}`;
        await page.goto(productPages.workspace);
      },
      screenshot: true,
    },
    {
      name: 'workspace-update-refused',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto(productPages.workspace);
        await page.getByLabel('Time zone', { exact: true }).fill('Mars/Olympus');
        await page.locator('#workspace-save').click();
        await page.locator('#workspace-timezone-error').waitFor();
      },
    },
    { name: 'workspaces', as: 'owner', part: 'product', open: '/dashboard/workspaces', screenshot: true },
    { name: 'themes', as: 'owner', part: 'product', open: '/dashboard/workspaces/themes', screenshot: true },
    { name: 'theme', as: 'owner', part: 'product', open: async (page) => void (await page.goto(productPages.theme)), screenshot: true },
    {
      name: 'apply-theme',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto(productPages.workspace);
        await page.getByLabel('Theme to apply', { exact: true }).selectOption({ label: 'Meadow' });
        await page.locator('#workspace-theme-preview').click();
        await page.locator('#apply-theme-confirm').waitFor();
      },
      screenshot: true,
    },
    { name: 'workspace-as-member', as: 'member', part: 'product', open: async (page) => void (await page.goto(productPages.workspace)) },
    { name: 'theme-as-member', as: 'member', part: 'product', open: async (page) => void (await page.goto(productPages.theme)) },
    // Billing: invoices and projects (a lead and a project made through the leads service's operations).
    { name: 'invoices-empty', as: 'owner', part: 'sales', open: '/dashboard/invoices' },
    {
      name: 'invoice-new',
      as: 'owner',
      part: 'sales',
      open: async (page, orgId) => {
        billing.leadId = (await app.platform.leads.deps.bus.call(leadsRpc.createLead, testIdentity({ org_id: orgId }), billingLead)).id;
        await page.goto(`/dashboard/invoices/new?lead_id=${billing.leadId}`);
      },
    },
    {
      name: 'invoice-draft-refused',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`/dashboard/invoices/new?lead_id=${billing.leadId}`);
        await page.locator('#line-0').getByLabel('Description').fill('Setup');
        await page.locator('#line-0').getByLabel('Unit price (USD)').fill('a lot');
        await page.getByRole('button', { name: 'Save as draft' }).click();
        await page.locator('#line-0-unit_price-error').waitFor();
      },
    },
    {
      name: 'invoice',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`/dashboard/invoices/new?lead_id=${billing.leadId}`);
        await page.locator('#line-0').getByLabel('Description').fill('Voice agent setup');
        await page.locator('#line-0').getByLabel('Quantity').fill('2');
        await page.locator('#line-0').getByLabel('Unit price (USD)').fill('150');
        await page.locator('#line-0').getByLabel('Tax rate (%)').fill('8.25');
        await page.getByRole('button', { name: 'Save as draft' }).click();
        await page.getByRole('status').filter({ hasText: 'Invoice drafted.' }).waitFor();
        billing.invoicePath = new URL(page.url()).pathname;
      },
      screenshot: true,
    },
    {
      name: 'invoice-edit',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`${billing.invoicePath}/edit`);
      },
    },
    {
      name: 'invoice-send',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`${billing.invoicePath}/send`);
      },
      screenshot: true,
    },
    {
      name: 'invoice-sent',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`${billing.invoicePath}/send`);
        await page.locator('#invoice-send-confirm').click();
        await page.getByRole('status').filter({ hasText: 'Invoice sent.' }).waitFor();
      },
    },
    { name: 'invoices', as: 'owner', part: 'sales', open: '/dashboard/invoices', screenshot: true },
    { name: 'invoices-filtered-refused', as: 'member', part: 'sales', open: '/dashboard/invoices?status=lost' },
    {
      name: 'invoice-as-member',
      as: 'member',
      part: 'sales',
      open: async (page) => {
        await page.goto(billing.invoicePath);
      },
    },
    {
      name: 'project',
      as: 'owner',
      part: 'sales',
      open: async (page, orgId) => {
        const project = await app.platform.leads.deps.bus.call(leadsRpc.createProject, testIdentity({ org_id: orgId }), {
          lead_id: billing.leadId,
          name: 'Website redesign',
          deliverables: [{ name: 'Mockups', url: 'https://example.com/mockups', done: true }, { name: 'Launch' }],
          notes: 'Kick-off on Monday.',
        });
        billing.projectPath = `/dashboard/projects/${project.id}`;
        await page.goto(billing.projectPath);
      },
      screenshot: true,
    },
    { name: 'projects', as: 'owner', part: 'sales', open: '/dashboard/projects' },
    {
      name: 'project-edit',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`${billing.projectPath}/edit`);
      },
    },
    {
      name: 'project-deliver',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto(`${billing.projectPath}/deliver`);
      },
    },
    { name: 'projects-as-member', as: 'member', part: 'sales', open: '/dashboard/projects?status=active' },
    // Leads: the list empty, the add form refused, a lead's page (a note, a sequence to enroll in), the list
    // with its checkboxes, the saved view, the edit form, the delete confirmation, and a member's list.
    { name: 'leads-empty', as: 'owner', part: 'sales', open: '/dashboard/leads' },
    {
      name: 'lead-new-refused',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto('/dashboard/leads/new');
        await page.getByLabel('Name', { exact: true }).fill('Hedy Lamarr');
        // A number the browser lets through (an e-mail field checks itself) and the leads service refuses.
        await page.getByLabel('Phone').fill('0415 555');
        await page.getByRole('button', { name: 'Add the lead' }).click();
        await page.locator('#lead-phone-error').waitFor();
      },
    },
    {
      name: 'lead',
      as: 'owner',
      part: 'sales',
      open: async (page, orgId) => {
        await app.platform.leads.deps.bus.call(leadsRpc.createSequence, testIdentity({ org_id: orgId }), {
          name: 'Follow-up',
          steps: [{ type: 'wait', delay_seconds: 86_400 }],
        });
        await page.goto('/dashboard/leads/new');
        await page.getByLabel('Name', { exact: true }).fill('Hedy Lamarr');
        await page.getByLabel('Phone').fill('+14155550606');
        await page.getByLabel('E-mail').fill('hedy@example.com');
        await page.getByLabel('Company').fill('Frequency Hopping Inc.');
        await page.getByRole('button', { name: 'Add the lead' }).click();
        await page.waitForURL(/\/dashboard\/leads\/lead_/);
        await page.getByLabel('Add a note').fill('Wants a quote for the spring.');
        await page.getByRole('button', { name: 'Add the note' }).click();
        await page.locator('#lead-notes').waitFor();
      },
      screenshot: true,
    },
    { name: 'leads', as: 'owner', part: 'sales', open: '/dashboard/leads', screenshot: true },
    { name: 'leads-filtered', as: 'member', part: 'sales', open: '/dashboard/leads?q=hedy&status=new&qualified=no&source=web' },
    { name: 'leads-recent-qualified', as: 'owner', part: 'sales', open: '/dashboard/leads/recent-qualified' },
    {
      name: 'lead-edit',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto('/dashboard/leads');
        await page.locator('#leads-table tbody a').first().click();
        await page.locator('#lead-edit').click();
        await page.locator('#lead-form').waitFor();
      },
    },
    {
      name: 'lead-delete',
      as: 'owner',
      part: 'sales',
      open: async (page) => {
        await page.goto('/dashboard/leads');
        await page.locator('#leads-table tbody a').first().click();
        await page.locator('#lead-delete').click();
        await page.locator('#lead-delete-confirm').waitFor();
      },
    },
    {
      name: 'lead-as-member',
      as: 'member',
      part: 'sales',
      open: async (page) => {
        await page.goto('/dashboard/leads');
        await page.locator('#leads-table tbody a').first().click();
        await page.locator('#lead-facts').waitFor();
      },
    },
    // The account page and password reset.
    { name: 'account', as: 'owner', open: '/dashboard/settings/account', screenshot: true },
    {
      name: 'account-password-refused',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/settings/account');
        await page.getByLabel('Current password').fill('not the password at all');
        await page.getByLabel('New password', { exact: true }).fill('a new long passphrase');
        await page.getByLabel('Repeat the new password').fill('a different passphrase');
        await page.getByRole('button', { name: 'Change password' }).click();
        await page.locator('.field-error').first().waitFor();
      },
    },
    { name: 'account-as-member', as: 'member', open: '/dashboard/settings/account' },
    { name: 'forgot-password', as: 'visitor', open: '/dashboard/forgot-password', screenshot: true },
    {
      name: 'forgot-password-sent',
      as: 'visitor',
      open: async (page) => {
        await page.goto('/dashboard/forgot-password');
        await page.getByLabel('E-mail address').fill('nobody@example.com');
        await page.getByRole('button', { name: 'Send the link' }).click();
        await page.getByRole('status').waitFor();
      },
    },
    {
      name: 'reset-password',
      as: 'visitor',
      open: async (page) => {
        // A link as the e-mail carries it (this platform has no SMTP server: the token is made here, its hash stored).
        const { prisma } = app.platform.console.deps;
        const user = await prisma.user.findUniqueOrThrow({ where: { email: 'max@example.com' } });
        const token = newToken();
        const now = new Date();
        await prisma.passwordReset.create({
          data: { tokenHash: hashToken(token), userId: user.id, createdAt: now, expiresAt: new Date(now.getTime() + 60_000) },
        });
        await page.goto(`/dashboard/reset-password/${token}`);
      },
      screenshot: true,
    },
    { name: 'reset-password-unknown', as: 'visitor', open: '/dashboard/reset-password/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    // Knowledge and brand score: the empty knowledge base, a paste refused on its field, a document added, the
    // list, its edit and delete pages, a question answered with citations; a brand scored, the form refused.
    { name: 'knowledge-empty', as: 'owner', part: 'product', open: '/dashboard/knowledge' },
    {
      name: 'knowledge-new-refused',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto('/dashboard/knowledge/new');
        await page.getByLabel('Title', { exact: true }).fill('Support hours');
        await page.locator('#document-source-url').fill('ftp://example.com/hours');
        await page.getByLabel('Text', { exact: true }).fill('Calls are answered from 8am to 6pm, Monday to Friday.');
        await page.locator('#document-add').click();
        await page.locator('#document-source-url-error').waitFor();
      },
    },
    {
      name: 'knowledge-document',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto('/dashboard/knowledge/new');
        await page.getByLabel('Title', { exact: true }).fill('Support hours');
        await page.locator('#document-source-url').fill('https://example.com/hours');
        await page
          .getByLabel('Text', { exact: true })
          .fill(
            '# Support hours\n\nOur support team answers phone calls from 8am to 6pm, Monday to Friday.\n\nOutside those hours the voice agent takes a message.',
          );
        await page.locator('#document-add').click();
        await page.getByRole('status').filter({ hasText: 'Document added to the knowledge base.' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'knowledge', as: 'owner', part: 'product', open: '/dashboard/knowledge', screenshot: true },
    {
      name: 'knowledge-edit',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto('/dashboard/knowledge');
        await page.locator('#documents').getByRole('link', { name: 'Support hours' }).first().click();
        await page.locator('#document-edit').click();
        await page.locator('#document-save').waitFor();
      },
    },
    {
      name: 'knowledge-delete',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto('/dashboard/knowledge');
        await page.locator('#documents').getByRole('link', { name: 'Support hours' }).first().click();
        await page.locator('#document-delete').click();
        await page.locator('#document-delete-confirm').waitFor();
      },
    },
    {
      name: 'knowledge-ask',
      as: 'member',
      part: 'product',
      open: '/dashboard/knowledge/ask?q=When+do+you+answer+phone+calls%3F',
      screenshot: true,
    },
    { name: 'knowledge-as-member', as: 'member', part: 'product', open: '/dashboard/knowledge' },
    {
      name: 'brand-score',
      as: 'owner',
      part: 'product',
      open: async (page) => {
        await page.goto('/dashboard/brand-score');
        await page.getByLabel('Brand', { exact: true }).fill('Acme Voice');
        await page.getByLabel('Website', { exact: true }).fill('https://acmevoice.example/');
        await page.locator('#brand-score-submit').click();
        await page.locator('#score-card').waitFor();
      },
      screenshot: true,
    },
    {
      name: 'brand-score-refused',
      as: 'member',
      part: 'product',
      open: async (page) => {
        await page.goto('/dashboard/brand-score');
        await page.getByLabel('Brand', { exact: true }).fill('Acme Voice');
        await page.getByLabel('Website', { exact: true }).fill('acmevoice');
        // The browser's own check of a url field would stop the form; the operation's refusal is the one looked at.
        await page.locator('#brand-url').evaluate((input) => input.setAttribute('type', 'text'));
        await page.locator('#brand-score-submit').click();
        await page.locator('#brand-url-error').waitFor();
      },
    },
    // The frame while the "Test data" switch is on: the switch checked and the orange banner, over the
    // API keys page's note on test keys. Last of its part: the member's session stays in test mode.
    {
      name: 'test-mode',
      as: 'member',
      open: async (page) => {
        await page.goto('/dashboard/settings/api');
        await page.getByRole('switch', { name: 'Test data' }).click();
        await page.locator('#test-mode-banner').waitFor();
      },
    },
  ];
  /** What the billing pages above make on the way: the lead billed, the invoice and the project. */
  const billing = { leadId: '', invoicePath: '', projectPath: '' };
  /** The addresses of the records the sequences and workspaces pages above made, for the pages after them. */
  const productPages = { sequence: '', workspace: '', theme: '' };
  const billingLead = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+14155550142', company: 'Analytical Engines' };

  let orgId = '';
  let browsers: Record<(typeof consolePages)[number]['as'], { page: Page }>;

  before(async () => {
    // An organization the gateway knows (on a plan with read-write keys), for the API keys pages.
    orgId = (await app.platform.org({ plan: 'pro' })).orgId;
    // Contexts that let axe's injected script run (see support/axe.ts); used for nothing else. The people
    // accept their invitations here, so the screenshots show names a reader can follow.
    browsers = {
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
    if (screensDir) await mkdir(screensDir, { recursive: true });
  });

  // One test per page, in order (later pages build on what earlier ones did).
  for (const consolePage of consolePages.filter((candidate) => (candidate.part ?? 'core') === part)) {
    test(`${consolePage.name}: no serious or critical accessibility violations (axe-core) in any look, nothing scrolls sideways at 375 px`, async () => {
      const { page } = browsers[consolePage.as];
      // Forms are filled in the desktop layout, light; then the page as it stands is looked at in each look.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: 'light' });
      if (typeof consolePage.open === 'string') await page.goto(consolePage.open);
      else await consolePage.open(page, orgId);
      const problems: string[] = [];
      for (const look of looks) {
        problems.push(...(await problemsIn(page, look)));
        if (consolePage.screenshot && screenshotDir && look.name === 'light')
          await page.screenshot({ path: `${screenshotDir}${consolePage.name}.png`, fullPage: true });
        if (consolePage.screenshot && screensDir)
          await page.screenshot({ path: `${screensDir}/${consolePage.name}-${look.name}.png`, fullPage: true });
      }
      assert.deepEqual(problems, [], `${page.url()}:\n  ${problems.join('\n  ')}`);
    });
  }

  test('the check itself sees violations when there are some: an unlabelled field and an image without text', async () => {
    const { page } = browsers.visitor;
    await page.setContent('<!doctype html><html lang="en"><title>t</title><main><img src="x.png"><input type="text"></main></html>');
    const control = (await blockingViolations(page)).map((violation) => violation.id).sort();
    assert.deepEqual(control, ['image-alt', 'label']);
  });
}
