// Invitations go out by e-mail (to a real SMTP server in this process) from the members page and from the
// operator's CLI; both still show the link, as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { runAdmin } from './support/admin-cli.js';
import { type Harness, newOrgId, startHarness } from './support/harness.js';
import { linkIn, startMailServer, type TestMailServer } from './support/smtp.js';

describe('invitation e-mail', () => {
  let mail: TestMailServer;
  let harness: Harness;
  let platform: Platform<'console'>;

  before(async () => {
    mail = await startMailServer();
    harness = await startHarness({ SMTP_URL: mail.url, MAIL_FROM: 'Voice console <console@example.com>' });
    platform = await startPlatform({ services: ['console'] });
  });
  after(async () => {
    await harness?.close();
    await platform?.close();
    await mail?.close();
  });

  test('an invitation made on the members page is e-mailed with the link the page shows', async () => {
    const orgId = newOrgId();
    const owner = await harness.person(orgId, 'owner');
    const browser = harness.browser();
    await browser.signIn(owner.email, owner.password);
    await browser.get('/dashboard/members');
    const email = `invited.${Date.now()}@example.com`;
    const created = await browser.post('/dashboard/members/invitations', { email, role: 'admin' });
    assert.equal(created.statusCode, 201);
    const shown = /https?:\/\/[^"<\s]+\/dashboard\/invitations\/[A-Za-z0-9_-]{43}/.exec(created.body)?.[0];
    assert.ok(shown, 'the page still shows the link');
    const message = await mail.next(email);
    assert.equal(message.from, 'console@example.com');
    assert.equal(linkIn(message), shown);
    assert.match(message.raw, /Person \d+ invited you to join/);
    assert.match(message.raw, /as admin/);
  });

  test('the CLI e-mails the invitation when SMTP_URL is set, and says so in its JSON', async () => {
    const { orgId } = await platform.org();
    const email = `cli.${Date.now()}@example.com`;
    const run = await runAdmin(['user', 'invite', '--org', orgId, '--email', email, '--role', 'owner'], {
      ...platform.ctx.env,
      SMTP_URL: mail.url,
    });
    assert.equal(run.status, 0, run.stderr);
    const printed = JSON.parse(run.stdout) as { link: string; emailed: boolean };
    assert.equal(printed.emailed, true);
    const message = await mail.next(email);
    assert.equal(linkIn(message), printed.link);
    assert.match(message.raw, /You are invited to join/);
  });
});
