// The console as people use it: headless Chromium, through the gateway, with real clicks and typing into
// labelled fields. One organization's journey from the operator's invitation link to signing out, then an
// accessibility check (axe-core) of every page, which also takes the README's screenshots when asked.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { blockingViolations, describeViolations } from './support/axe.js';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { invitePerson, newOrgId } from './support/harness.js';

const password = 'a long enough passphrase for tests';
/** `CONSOLE_SCREENSHOTS=1 npm test -- browser-journey` refreshes the README's pictures; CI leaves the tree alone. */
const screenshotDir = process.env.CONSOLE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : null;

let sequence = 0;
const uniqueEmail = (who: string) => `${who}.${Date.now()}.${++sequence}@example.com`;

describe('the console in a browser', () => {
  let app: ConsoleInBrowser;

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(() => app?.close());

  /** A person's own browser: cookies of their own, the console's Content-Security-Policy enforced. */
  async function openBrowser(options: { bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await app.newContext({ viewport: { width: 1280, height: 800 }, ...options });
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
    return new URL(new URL(shown).pathname, app.url).toString();
  }

  test('from the operator’s invitation to signing out: an owner invites a member, who can look but not change', async () => {
    const orgId = newOrgId();
    const ownerEmail = uniqueEmail('owner');
    const owner = await openBrowser();

    // The operator's link: set a name and a password, and be signed in.
    await acceptInvitation(owner.page, await app.invitationLink(orgId, ownerEmail, 'owner'), 'Olivia Owner');
    assert.equal(await owner.page.getByRole('heading', { level: 1 }).textContent(), `Organization ${orgId}`);
    assert.match((await owner.page.getByRole('main').textContent()) ?? '', /owner of this organization/);
    // The Content-Security-Policy holds in the browser: an inline script (what an XSS would add) does not run.
    await owner.page.addScriptTag({ content: 'document.body.dataset.injected = "yes"' }).catch(() => {});
    assert.equal(await owner.page.locator('body').getAttribute('data-injected'), null);

    // Members: the owner alone, then an invitation for a member, its link shown once.
    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await owner.page.waitForURL(/\/dashboard\/members$/);
    assert.equal(await owner.page.getByRole('row').filter({ hasText: ownerEmail }).count(), 1);
    const memberEmail = uniqueEmail('member');
    await owner.page.getByLabel('E-mail address').fill(memberEmail);
    await owner.page.getByLabel('Role', { exact: true }).selectOption('member');
    await owner.page.getByRole('button', { name: 'Create invitation link' }).click();
    await owner.page.getByRole('heading', { name: 'Invitation created' }).waitFor();
    const memberLink = await shownInvitationLink(owner.page);

    // The member, in a browser of their own, accepts and sees the members but no button to change them.
    const member = await openBrowser();
    await acceptInvitation(member.page, memberLink, 'Max Member');
    await member.page.getByRole('link', { name: 'Members' }).click();
    await member.page.waitForURL(/\/dashboard\/members$/);
    const main = member.page.getByRole('main');
    assert.equal(await main.getByRole('row').filter({ hasText: ownerEmail }).count(), 1);
    assert.equal(await main.getByRole('row').filter({ hasText: memberEmail }).count(), 1);
    assert.equal(await main.getByRole('button').count(), 0, 'a member sees no buttons on the members page');
    assert.equal(await main.getByRole('heading', { name: 'Invite someone' }).count(), 0);

    // A hand-made POST from the member's own session, with its valid form token, is refused by the server.
    const memberToken = await formToken(member.page);
    const ownMembership = await app.platform.console.deps.prisma.membership.findFirstOrThrow({
      where: { orgId, user: { email: memberEmail } },
    });
    const promote = await member.page.request.post(`/dashboard/members/${ownMembership.id}/role`, {
      form: { role: 'owner', _csrf: memberToken },
      maxRedirects: 0,
    });
    assert.equal(promote.status(), 403);
    const invite = await member.page.request.post('/dashboard/members/invitations', {
      form: { email: uniqueEmail('stranger'), role: 'admin', _csrf: memberToken },
      maxRedirects: 0,
    });
    assert.equal(invite.status(), 403);
    assert.equal((await app.platform.console.deps.prisma.membership.findUniqueOrThrow({ where: { id: ownMembership.id } })).role, 'member');

    // The owner's own form, sent without its form token, is refused (403) and says why.
    await owner.page.getByRole('link', { name: 'Back to members' }).click();
    await owner.page.waitForURL(/\/dashboard\/members$/);
    await owner.page.locator('form[action="/dashboard/members/invitations"] input[name="_csrf"]').evaluate((field) => field.remove());
    await owner.page.getByLabel('E-mail address').fill(uniqueEmail('tokenless'));
    const [refused] = await Promise.all([
      owner.page.waitForResponse((response) => response.url().endsWith('/dashboard/members/invitations')),
      owner.page.getByRole('button', { name: 'Create invitation link' }).click(),
    ]);
    assert.equal(refused.status(), 403);
    await owner.page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    assert.match((await owner.page.getByRole('main').textContent()) ?? '', /security token/);

    // Organization B's members stay out of reach of A's owner, whatever the URL or form says.
    const orgB = newOrgId();
    const ownerB = await invitePerson(app.platform.console.deps, orgB, 'owner');
    const membershipB = await app.platform.console.deps.prisma.membership.findFirstOrThrow({ where: { orgId: orgB } });
    await owner.page.goto(`/dashboard/members?org_id=${orgB}`);
    assert.equal(await owner.page.getByText(ownerB.email).count(), 0);
    assert.match((await owner.page.getByRole('table').locator('caption').textContent()) ?? '', new RegExp(orgId));
    const ownerToken = await formToken(owner.page);
    for (const [path, form] of [
      [`/dashboard/members/${membershipB.id}/role`, { role: 'member' }],
      [`/dashboard/members/${membershipB.id}/remove`, {}],
      ['/dashboard/organization', { org_id: orgB }],
    ] as const) {
      const response = await owner.page.request.post(path, { form: { ...form, _csrf: ownerToken }, maxRedirects: 0 });
      assert.equal(response.status(), 404, `${path} answers 404 for another organization`);
    }
    assert.equal((await app.platform.console.deps.prisma.membership.findUniqueOrThrow({ where: { id: membershipB.id } })).role, 'owner');
    await owner.page.goto('/dashboard');
    assert.equal(await owner.page.getByRole('heading', { level: 1 }).textContent(), `Organization ${orgId}`);

    // Sign out: back to sign-in, and the old session cookie opens nothing any more.
    const sessionCookies = (await owner.context.cookies()).filter((cookie) => cookie.name === 'console_session');
    assert.equal(sessionCookies.length, 1);
    await owner.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await owner.page.waitForURL(/\/dashboard\/sign-in\?signed_out$/);
    const replay = await openBrowser();
    await replay.context.addCookies(sessionCookies);
    await replay.page.goto('/dashboard/members');
    assert.match(replay.page.url(), /\/dashboard\/sign-in$/);
    await replay.page.getByRole('heading', { name: 'Sign in' }).waitFor();

    // The password set on the invitation page signs the owner in again through the form.
    await signIn(owner.page, ownerEmail, password);
    assert.equal(await owner.page.getByRole('heading', { level: 1 }).textContent(), `Organization ${orgId}`);
  });

  /** `GET /api/v1/phone/calls` with a key, through the gateway, as the key's holder would call it. */
  const callsWith = (key: string) => fetch(`${app.url}/api/v1/phone/calls`, { headers: { authorization: `Bearer ${key}` } });
  const rawKeyPattern = /vk_live_[0-9A-Za-z]{38}/;
  const keysPath = /\/dashboard\/settings\/api$/;

  /** Fills the create form and submits it; ends on the page that shows the new key once. */
  async function createKey(page: Page, name: string, scope: 'read' | 'read-write'): Promise<string> {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Scope').selectOption(scope);
    await page.getByLabel('Monthly quota (requests)').fill('5000');
    await page.locator('#key-create').click();
    await page.getByRole('heading', { name: 'Key created' }).waitFor();
    return page.locator('#new-key').inputValue();
  }

  /** The audit log's records of a key's calls, read through the gateway with the key (the writer is asynchronous). */
  async function auditedCalls(key: string, keyId: string): Promise<Array<{ key_id: string; path: string; status: number }>> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const response = await fetch(`${app.url}/api/v1/audit-log?limit=100`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200);
      const records = ((await response.json()) as { data: Array<{ key_id: string; path: string; status: number }> }).data;
      const found = records.filter((record) => record.key_id === keyId && record.path === '/api/v1/phone/calls');
      if (found.length > 0) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return [];
  }

  test('an owner’s API key: created read-write, read once, used through the gateway, audited, rotated with a grace hour, revoked', async () => {
    const { orgId } = await app.platform.org({ plan: 'pro' });
    const owner = await openBrowser();
    await acceptInvitation(owner.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Olivia Owner');

    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await owner.page.waitForURL(keysPath);
    const key = await createKey(owner.page, 'Journey key', 'read-write');
    assert.match(key, rawKeyPattern);
    assert.match((await owner.page.getByRole('main').textContent()) ?? '', /will not be shown again/);

    // Read once: neither the list nor a later visit of the same page shows it again.
    await owner.page.getByRole('link', { name: 'Back to API keys' }).click();
    await owner.page.waitForURL(keysPath);
    const row = owner.page.getByRole('row').filter({ hasText: 'Journey key' });
    assert.match((await row.textContent()) ?? '', /read-write/);
    assert.doesNotMatch(await owner.page.content(), rawKeyPattern);
    await owner.page.reload();
    assert.doesNotMatch(await owner.page.content(), rawKeyPattern);

    // Used through the gateway, and the call is in the organization's audit log under that key.
    assert.equal((await callsWith(key)).status, 200);
    const stored = await app.platform.gateway.deps.prisma.apiKey.findFirstOrThrow({ where: { orgId, name: 'Journey key' } });
    const audited = await auditedCalls(key, stored.id);
    assert.equal(audited.length, 1, 'the call is in the audit log');
    assert.equal(audited[0]?.status, 200);

    // Rotate with a grace hour: the new key is shown once, and both keys work.
    await owner.page.locator(`#grace-${stored.id}`).selectOption('3600');
    await owner.page.getByRole('button', { name: 'Rotate Journey key' }).click();
    await owner.page.getByRole('heading', { name: 'Key rotated' }).waitFor();
    const successor = await owner.page.locator('#new-key').inputValue();
    assert.match(successor, rawKeyPattern);
    assert.notEqual(successor, key);
    assert.equal((await callsWith(key)).status, 200, 'the old key works during its grace hour');
    assert.equal((await callsWith(successor)).status, 200);

    // Revoke the new key after its confirmation page: it is refused at once as revoked.
    await owner.page.getByRole('link', { name: 'Back to API keys' }).click();
    await owner.page.waitForURL(keysPath);
    await owner.page.getByRole('link', { name: 'Revoke Journey key' }).click();
    await owner.page.getByRole('heading', { name: 'Revoke key Journey key' }).waitFor();
    await owner.page.locator('#key-revoke-confirm').click();
    await owner.page.waitForURL(keysPath);
    const refused = await callsWith(successor);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'revoked');
    assert.equal(await owner.page.getByRole('link', { name: 'Revoke Journey key' }).count(), 0);

    // A member of the same organization sees the keys, without any button or link to change them.
    const member = await openBrowser();
    await acceptInvitation(member.page, await app.invitationLink(orgId, uniqueEmail('member'), 'member'), 'Max Member');
    await member.page.getByRole('link', { name: 'API keys' }).click();
    await member.page.waitForURL(keysPath);
    const main = member.page.getByRole('main');
    assert.ok((await main.getByRole('row').filter({ hasText: 'Journey key' }).count()) >= 2, 'the member sees both keys');
    assert.equal(await main.getByRole('button').count(), 0, 'a member sees no buttons on the keys page');
    assert.equal(await main.getByRole('link', { name: /Revoke/ }).count(), 0);
    assert.equal(await member.page.locator('#key-name').count(), 0);

    // Sign out: the keys page then asks for a sign-in.
    await owner.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await owner.page.waitForURL(/\/dashboard\/sign-in\?signed_out$/);
    await owner.page.goto('/dashboard/settings/api');
    assert.match(owner.page.url(), /\/dashboard\/sign-in$/);
  });

  test('the Lite plan: read-only keys, and at its one key the limit’s message replaces the form', async () => {
    const org = (await app.platform.gateway.admin({ kind: 'org.create', name: 'Small', plan: 'lite' })) as { id: string };
    const owner = await openBrowser();
    await acceptInvitation(owner.page, await app.invitationLink(org.id, uniqueEmail('lite-owner'), 'owner'), 'Lena Lite');
    await owner.page.goto('/dashboard/settings/api');
    assert.deepEqual(await owner.page.getByLabel('Scope').locator('option').allTextContents(), ['read']);
    await createKey(owner.page, 'Only key', 'read');
    await owner.page.getByRole('link', { name: 'Back to API keys' }).click();
    await owner.page.waitForURL(keysPath);
    assert.match(
      (await owner.page.locator('#key-limit').textContent()) ?? '',
      /The lite plan allows 1 key; 1 in use\. Revoke a key or change the plan to create another\./,
    );
    assert.equal(await owner.page.locator('#key-name').count(), 0);
  });

  /**
   * Every page of the console a person can reach, checked with axe and (when asked) photographed. `open`
   * is an address, or the steps that reach a page only a form leads to. A new page is one more line.
   */
  const consolePages: Array<{
    name: string;
    as: 'visitor' | 'owner' | 'member';
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
      name: 'api-key-created',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/settings/api');
        await createKey(page, 'Billing sync', 'read-write');
      },
      screenshot: true,
    },
    { name: 'api-keys', as: 'owner', open: '/dashboard/settings/api', screenshot: true },
    {
      name: 'api-key-revoke',
      as: 'owner',
      open: async (page) => {
        await page.goto('/dashboard/settings/api');
        await page.getByRole('link', { name: 'Revoke Billing sync' }).click();
        await page.getByRole('heading', { name: 'Revoke key Billing sync' }).waitFor();
      },
      screenshot: true,
    },
    { name: 'api-keys-as-member', as: 'member', open: '/dashboard/settings/api', screenshot: true },
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
    };
    await acceptInvitation(browsers.owner.page, await app.invitationLink(orgId, 'olivia@example.com', 'owner'), 'Olivia Owner');
    await acceptInvitation(browsers.member.page, await app.invitationLink(orgId, 'max@example.com', 'member'), 'Max Member');
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
