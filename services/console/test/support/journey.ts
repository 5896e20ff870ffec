// The steps people take in the console's browser tests: open a browser, accept an invitation, sign in,
// create a key. Shared by the browser test files, each of which starts its own platform and browser (one
// file would outgrow the test runner's per-file time limit).
import { eventually } from '@voice/kit/testing';
import type { BrowserContext, Page } from 'playwright-core';
import type { ConsoleInBrowser } from './browser.js';

export const password = 'a long enough passphrase for tests';

let sequence = 0;
export const uniqueEmail = (who: string) => `${who}.${Date.now()}.${++sequence}@example.com`;

export const rawKeyPattern = /vk_live_[0-9A-Za-z]{38}/;
export const keysPath = /\/dashboard\/settings\/api$/;

/** The steps, bound to the running console (`app()` is read when a step runs, after the suite's `before`). */
export function browserSteps(app: () => ConsoleInBrowser<'console' | 'webhooks'>) {
  /** A person's own browser: cookies of their own, the console's Content-Security-Policy enforced. */
  async function openBrowser(options: { bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await app().newContext({ viewport: { width: 1280, height: 800 }, ...options });
    context.setDefaultTimeout(10_000);
    return { context, page: await context.newPage() };
  }

  /** Opens an invitation link and accepts it with a name and a new password; ends on the home page. */
  async function acceptInvitation(page: Page, link: string, name: string): Promise<void> {
    await page.goto(link);
    await page.getByLabel('Your name').fill(name);
    await page.getByLabel('Choose a password').fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Accept and sign in' }).click();
    await page.waitForURL(/\/dashboard$/);
  }

  async function signIn(page: Page, email: string, secret: string): Promise<void> {
    await page.goto('/dashboard/sign-in');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard$/);
  }

  /** The form token of the page, as a script of the page could read it (it is in every signed-in page). */
  const formToken = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

  /** The invitation link shown once after an owner invites someone, moved onto the gateway's address. */
  async function shownInvitationLink(page: Page): Promise<string> {
    const shown = await page.getByLabel('Invitation link').inputValue();
    return new URL(new URL(shown).pathname, app().url).toString();
  }

  /** `GET /api/v1/phone/calls` with a key, through the gateway, as the key's holder would call it. */
  const callsWith = (key: string) => fetch(`${app().url}/api/v1/phone/calls`, { headers: { authorization: `Bearer ${key}` } });

  /** Fills the create form and submits it; ends on the page that shows the new key once. */
  async function createKey(page: Page, name: string, scope: 'read' | 'read-write'): Promise<string> {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Scope').selectOption(scope);
    await page.getByLabel('Monthly quota (requests)').fill('5000');
    await page.locator('#key-create').click();
    await page.getByRole('heading', { name: 'Key created' }).waitFor();
    return page.locator('#new-key').inputValue();
  }

  /**
   * Opens a page until `check` finds what it waits for, reloading between tries: the audit records behind
   * the usage and audit log pages are written in batches, after the call that made them has answered.
   */
  async function reloadUntil(page: Page, path: string, what: string, check: () => Promise<boolean>): Promise<void> {
    await eventually(
      what,
      async () => {
        await page.goto(path);
        return check();
      },
      { intervalMs: 200 },
    );
  }

  /** The usage page's figure for a key today (the data table's first row, today, in the key's column). */
  async function usageToday(page: Page, keyName: string): Promise<number> {
    const table = page.locator('#usage-table');
    const headers = await table.locator('thead th').allTextContents();
    const column = headers.indexOf(keyName);
    if (column < 0) return 0;
    return Number(await table.locator('tbody tr').first().locator('th, td').nth(column).textContent());
  }

  return { openBrowser, acceptInvitation, signIn, formToken, shownInvitationLink, callsWith, createKey, reloadUntil, usageToday };
}
