// The console as people use it: headless Chromium, through the gateway, with real clicks and typing into
// labelled fields. One organization's journey from the operator's invitation link to signing out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { invitePerson, newOrgId } from './support/harness.js';
import { browserSteps, password, uniqueEmail } from './support/journey.js';

describe('the console in a browser', () => {
  let app: ConsoleInBrowser;
  const steps = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(() => app?.close());
  const { openBrowser, acceptInvitation, signIn, formToken, shownInvitationLink } = steps;

  test('from the operator’s invitation to signing out: an owner invites a member, who can look but not change', async () => {
    // An organization the gateway knows, as the operator's `npm run -s admin -- org create` makes it; pages name it.
    const orgName = 'Olivia’s Calls & Co';
    const { id: orgId } = (await app.platform.gateway.admin({ kind: 'org.create', name: orgName, plan: 'starter' })) as { id: string };
    const ownerEmail = uniqueEmail('owner');
    const owner = await openBrowser();

    // The operator's link: set a name and a password, and be signed in.
    await acceptInvitation(owner.page, await app.invitationLink(orgId, ownerEmail, 'owner'), 'Olivia Owner');
    assert.equal(await owner.page.getByRole('heading', { level: 1 }).textContent(), `Organization ${orgName}`);
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
    assert.equal(await owner.page.getByRole('table').locator('caption').textContent(), `People of organization ${orgName}`);
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
    assert.equal(await owner.page.getByRole('heading', { level: 1 }).textContent(), `Organization ${orgName}`);

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
    assert.equal(await owner.page.getByRole('heading', { level: 1 }).textContent(), `Organization ${orgName}`);
  });
});
