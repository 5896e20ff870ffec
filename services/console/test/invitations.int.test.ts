import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInvitation } from '../src/domain/invitations.js';
import { type Harness, newOrgId, startHarness } from './support/harness.js';

const day = 24 * 60 * 60_000;
const pathOf = (link: string) => new URL(link).pathname;

describe('invitations', () => {
  let harness: Harness;

  before(async () => {
    harness = await startHarness();
  });
  after(() => harness.close());

  const invite = (orgId: string, email: string, role: 'owner' | 'admin' | 'member' = 'member') =>
    createInvitation(harness.deps, { orgId, email, role, invitedBy: null });

  test('accepting sets a name and password and signs in; the link then works no more', async () => {
    const orgId = newOrgId();
    const invitation = await invite(orgId, 'newcomer@example.com', 'owner');
    const browser = harness.browser();
    const form = await browser.get(pathOf(invitation.link));
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="password">Choose a password<\/label>/);
    const short = await browser.post(pathOf(invitation.link), { name: 'New Comer', password: 'short', password_confirmation: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 12 characters/);
    const differ = await browser.post(pathOf(invitation.link), {
      name: 'New Comer',
      password: 'a long enough password',
      password_confirmation: 'another long password',
    });
    assert.equal(differ.statusCode, 400);
    const accepted = await browser.post(pathOf(invitation.link), {
      name: 'New Comer',
      password: 'a long enough password',
      password_confirmation: 'a long enough password',
    });
    assert.equal(accepted.statusCode, 303);
    const home = await browser.get('/dashboard');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /New Comer/);
    assert.match(home.body, /owner of this organization/);

    const again = await harness.browser().get(pathOf(invitation.link));
    assert.equal(again.statusCode, 410);
    assert.match(again.body, /already been used/);
    const signIn = await harness.browser({ address: '198.51.100.77' }).signIn('newcomer@example.com', 'a long enough password');
    assert.equal(signIn.statusCode, 303);
  });

  test('an expired invitation gets a clear page and cannot be accepted', async () => {
    const invitation = await invite(newOrgId(), 'late@example.com');
    harness.clock.advanceMs(7 * day + 1);
    const browser = harness.browser();
    const page = await browser.get(pathOf(invitation.link));
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /has expired/);
    await browser.get('/dashboard/sign-in');
    const post = await browser.post(pathOf(invitation.link), {
      name: 'Late',
      password: 'a long enough password',
      password_confirmation: 'a long enough password',
    });
    assert.equal(post.statusCode, 410);
    assert.equal(await harness.deps.prisma.user.count({ where: { email: 'late@example.com' } }), 0);
  });

  test('an unknown or malformed link is a 404 page', async () => {
    assert.equal((await harness.browser().get('/dashboard/invitations/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).statusCode, 404);
    assert.equal((await harness.browser().get('/dashboard/invitations/%3Cscript%3E')).statusCode, 404);
  });

  test('someone with an account joins a second organization with their password, then switches between them', async () => {
    const first = newOrgId();
    const second = newOrgId();
    const person = await harness.person(first, 'member', { email: 'twice@example.com' });
    const invitation = await invite(second, 'twice@example.com', 'admin');
    const browser = harness.browser();
    const form = await browser.get(pathOf(invitation.link));
    assert.match(form.body, /already have an account/);
    assert.equal((await browser.post(pathOf(invitation.link), { password: 'not my password' })).statusCode, 401);
    assert.equal((await browser.post(pathOf(invitation.link), { password: person.password })).statusCode, 303);
    const home = await browser.get('/dashboard');
    assert.match(home.body, new RegExp(`Organization ${second}`));
    assert.match(home.body, /<label for="org-switch">Organization<\/label>/);
    assert.equal((await browser.post('/dashboard/organization', { org_id: first })).statusCode, 303);
    const switched = await browser.get('/dashboard');
    assert.match(switched.body, new RegExp(`Organization ${first}`));
    assert.match(switched.body, /member of this organization/);
  });

  test('two acceptances of one link at once make one account', async () => {
    const invitation = await invite(newOrgId(), 'race@example.com');
    const fields = { name: 'Race', password: 'a long enough password', password_confirmation: 'a long enough password' };
    const browsers = [harness.browser(), harness.browser()];
    await Promise.all(browsers.map((browser) => browser.get(pathOf(invitation.link))));
    const statuses = (await Promise.all(browsers.map((browser) => browser.post(pathOf(invitation.link), fields)))).map((r) => r.statusCode);
    assert.deepEqual(statuses.sort(), [303, 410]);
    assert.equal(await harness.deps.prisma.user.count({ where: { email: 'race@example.com' } }), 1);
  });
});
