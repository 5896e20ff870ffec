// "Forgot password?" in headless Chromium, through the gateway: the e-mail arrives at a real SMTP server in
// this process, its link sets a new password, and every session the person had before is gone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, password, uniqueEmail } from './support/journey.js';
import { linkIn, startMailServer, type TestMailServer } from './support/smtp.js';

describe('password reset in a browser', () => {
  let app: ConsoleInBrowser;
  let mail: TestMailServer;
  const steps = browserSteps(() => app);
  const { acceptInvitation, signIn } = steps;
  /**
   * A person's browser whose steps wait up to a minute: each step here includes scrypt (accepting, signing
   * in, resetting), which on a loaded 2-core machine took over the journey's 10 s; the limit is for a hang.
   */
  async function openBrowser() {
    const opened = await steps.openBrowser();
    opened.context.setDefaultTimeout(60_000);
    return opened;
  }

  before(async () => {
    mail = await startMailServer();
    app = await startConsoleInBrowser({ console: { SMTP_URL: mail.url, MAIL_FROM: 'Voice console <console@example.com>' } });
  });
  after(async () => {
    await app?.close();
    await mail?.close();
  });

  test('forgot password → the e-mail → a new password → signed in, every old session gone', async () => {
    const { id: orgId } = (await app.platform.gateway.admin({ kind: 'org.create', name: 'Reset & Co', plan: 'starter' })) as { id: string };
    const email = uniqueEmail('rita');
    const laptop = await openBrowser();
    await acceptInvitation(laptop.page, await app.invitationLink(orgId, email, 'owner'), 'Rita Reset');
    const phone = await openBrowser();
    await signIn(phone.page, email, password);

    // Signed out somewhere else, the person has forgotten the password.
    const fresh = await openBrowser();
    await fresh.page.goto('/dashboard/sign-in');
    await fresh.page.getByRole('link', { name: 'Forgot password?' }).click();
    await fresh.page.waitForURL(/\/dashboard\/forgot-password$/);
    await fresh.page.getByLabel('E-mail address').fill(email);
    await fresh.page.getByRole('button', { name: 'Send the link' }).click();
    await fresh.page.getByText('a link to choose a new password is on its way').waitFor();

    const message = await mail.next(email);
    const link = new URL(linkIn(message));
    assert.equal(link.origin, app.url, 'the link is on the public address');
    await fresh.page.goto(link.toString());
    assert.equal(await fresh.page.getByRole('heading', { level: 1 }).textContent(), 'Choose a new password');
    const newPassword = 'the passphrase after the reset';
    await fresh.page.getByLabel('New password', { exact: true }).fill(newPassword);
    await fresh.page.getByLabel('Repeat the new password').fill(newPassword);
    await fresh.page.getByRole('button', { name: 'Save and sign in' }).click();
    await fresh.page.waitForURL(/\/dashboard$/);

    // Signed in: the account page lists this session alone.
    await fresh.page.goto('/dashboard/settings/account');
    const sessions = fresh.page.getByRole('region', { name: 'Your sessions' });
    assert.equal(await sessions.getByRole('row').count(), 2, 'a header row and this session');
    assert.equal(await sessions.getByText('This session').count(), 1);

    // The old sessions' cookies are refused: both lead to sign-in.
    for (const old of [laptop, phone]) {
      const response = await old.context.request.get('/dashboard/settings/account', { maxRedirects: 0 });
      assert.equal(response.status(), 303);
      assert.equal(response.headers().location, '/dashboard/sign-in');
    }
    // The link worked once.
    await fresh.page.goto(link.toString());
    assert.equal(await fresh.page.getByRole('heading', { level: 1 }).textContent(), 'This reset link cannot be used');
    // The old password no longer signs in; the new one does.
    await phone.page.goto('/dashboard/sign-in');
    await phone.page.getByLabel('E-mail address').fill(email);
    await phone.page.getByLabel('Password').fill(password);
    await phone.page.getByRole('button', { name: 'Sign in' }).click();
    await phone.page.getByText('The e-mail address or the password is wrong.').waitFor();
    await signIn(phone.page, email, newPassword);
  });
});
