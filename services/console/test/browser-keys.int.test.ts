// The API keys page in headless Chromium, through the gateway: a key created, read once, used, seen in the
// usage page and the audit log, rotated with a grace hour and revoked; what a member sees; the Lite plan's limit.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, keysPath, rawKeyPattern, uniqueEmail } from './support/journey.js';

describe('API keys in a browser', () => {
  let app: ConsoleInBrowser;
  const steps = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(() => app?.close());
  const { openBrowser, acceptInvitation, callsWith, createKey, reloadUntil, usageToday } = steps;

  test('an owner’s API key: created read-write, read once, used through the gateway, seen in usage and the audit log, rotated with a grace hour, revoked', async () => {
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

    // Used through the gateway; the call then shows in the usage page and in the audit log filtered by the key.
    assert.equal((await callsWith(key)).status, 200);
    const stored = await app.platform.gateway.deps.prisma.apiKey.findFirstOrThrow({ where: { orgId, name: 'Journey key' } });
    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    await owner.page.waitForURL(/\/dashboard\/usage$/);
    await reloadUntil(
      owner.page,
      '/dashboard/usage',
      'the call in the usage page',
      async () => (await usageToday(owner.page, 'Journey key')) === 1,
    );
    const monthRow = owner.page.locator('#usage-keys tbody tr').filter({ hasText: 'Journey key' });
    assert.deepEqual((await monthRow.locator('td').allTextContents()).slice(1, 4), ['active', '1', '5,000']);

    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await owner.page.waitForURL(/\/dashboard\/audit-log$/);
    await owner.page.getByLabel('Key', { exact: true }).selectOption(stored.id);
    await owner.page.getByRole('button', { name: 'Filter' }).click();
    await owner.page.waitForURL(new RegExp(`key_id=${stored.id}`));
    const filtered = new URL(owner.page.url()).pathname + new URL(owner.page.url()).search;
    const callRows = owner.page.locator('#audit-records tbody tr').filter({ hasText: '/api/v1/phone/calls' });
    await reloadUntil(owner.page, filtered, 'the call in the audit log', async () => (await callRows.count()) > 0);
    assert.equal(await callRows.count(), 1, 'the call is in the audit log once');
    assert.deepEqual((await callRows.locator('td').allTextContents()).slice(1, 6), ['key', stored.id, 'GET', '/api/v1/phone/calls', '200']);
    // The filter keeps the key's records only: the console's own actions (actor `user`) are not among them.
    assert.equal(await owner.page.locator('#audit-records tbody tr').count(), 1);

    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await owner.page.waitForURL(keysPath);

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
});
