import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Harness, newOrgId, startHarness } from './support/harness.js';

describe('members, roles, CSRF and organizations', () => {
  let harness: Harness;
  let orgA: string;
  let orgB: string;
  let owner: Browser;
  let ownerId: string;

  before(async () => {
    // Removing a member revokes the apps they connected: the gateway, which keeps grants, answers.
    harness = await startHarness({}, { gateway: true });
    orgA = newOrgId();
    orgB = newOrgId();
    const person = await harness.person(orgA, 'owner');
    ownerId = person.userId;
    owner = harness.browser();
    await owner.signIn(person.email, person.password);
  });
  after(() => harness.close());

  const membershipOf = (orgId: string, userId: string) =>
    harness.deps.prisma.membership.findUniqueOrThrow({ where: { orgId_userId: { orgId, userId } } });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await harness.person(orgId, role);
    const browser = harness.browser();
    await browser.signIn(person.email, person.password);
    return { browser, userId: person.userId };
  }

  test('an owner invites from the members page and sees the link once', async () => {
    const page = await owner.get('/dashboard/members');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<label for="invite-email">/);
    const created = await owner.post('/dashboard/members/invitations', { email: 'colleague@example.com', role: 'admin' });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /\/dashboard\/invitations\/[A-Za-z0-9_-]{43}/);
    const later = await owner.get('/dashboard/members');
    assert.match(later.body, /colleague@example.com as admin/);
    assert.doesNotMatch(later.body, /\/dashboard\/invitations\/[A-Za-z0-9_-]{43}/, 'the link is not shown again');
  });

  test('a member sees the members but no forms, and a hand-made POST with a valid form token is 403', async () => {
    const { browser } = await signedIn(orgA, 'member');
    const page = await browser.get('/dashboard/members');
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Change role|Invite someone|Remove/);
    const target = await membershipOf(orgA, ownerId);
    const invite = await browser.post('/dashboard/members/invitations', { email: 'x@example.com', role: 'admin' });
    assert.equal(invite.statusCode, 403);
    assert.equal((await browser.post(`/dashboard/members/${target.id}/role`, { role: 'member' })).statusCode, 403);
    assert.equal((await browser.post(`/dashboard/members/${target.id}/remove`, {})).statusCode, 403);
    assert.equal((await membershipOf(orgA, ownerId)).role, 'owner');
  });

  test('a POST without the form token, or with another session’s, is 403 and changes nothing', async () => {
    const { userId } = await signedIn(orgA, 'member');
    const target = await membershipOf(orgA, userId);
    await owner.get('/dashboard/members');
    assert.equal((await owner.post(`/dashboard/members/${target.id}/role`, { role: 'admin' }, { csrf: false })).statusCode, 403);
    const other = await signedIn(orgA, 'admin');
    await other.browser.get('/dashboard');
    const foreignToken = other.browser.formToken ?? '';
    assert.equal((await owner.post(`/dashboard/members/${target.id}/role`, { role: 'admin' }, { csrf: foreignToken })).statusCode, 403);
    assert.equal((await owner.post('/dashboard/sign-out', {}, { csrf: false })).statusCode, 403);
    assert.equal((await membershipOf(orgA, userId)).role, 'member');
    await owner.get('/dashboard/members');
    assert.equal((await owner.post(`/dashboard/members/${target.id}/role`, { role: 'admin' })).statusCode, 303);
    assert.equal((await membershipOf(orgA, userId)).role, 'admin');
  });

  test('organization A cannot act on organization B by tampering with ids or the organization field', async () => {
    const inB = await signedIn(orgB, 'member');
    const targetInB = await membershipOf(orgB, inB.userId);
    await owner.get('/dashboard/members');
    assert.equal((await owner.post(`/dashboard/members/${targetInB.id}/role`, { role: 'owner' })).statusCode, 404);
    assert.equal((await owner.post(`/dashboard/members/${targetInB.id}/remove`, {})).statusCode, 404);
    assert.equal((await membershipOf(orgB, inB.userId)).role, 'member');
    // Switching to an organization one is not a member of is refused; the session stays in its own.
    assert.equal((await owner.post('/dashboard/organization', { org_id: orgB })).statusCode, 404);
    const home = await owner.get('/dashboard');
    assert.match(home.body, new RegExp(`Organization ${orgA}`));
    const members = await owner.get(`/dashboard/members?org_id=${orgB}`);
    assert.doesNotMatch(members.body, new RegExp(orgB));
  });

  test('the last owner cannot be demoted or removed; with a second owner it can', async () => {
    const ownerMembership = await membershipOf(orgA, ownerId);
    await owner.get('/dashboard/members');
    const demote = await owner.post(`/dashboard/members/${ownerMembership.id}/role`, { role: 'admin' });
    assert.equal(demote.statusCode, 409);
    assert.match(demote.body, /needs an owner/);
    assert.equal((await owner.post(`/dashboard/members/${ownerMembership.id}/remove`, {})).statusCode, 409);
    assert.equal((await membershipOf(orgA, ownerId)).role, 'owner');

    const second = await signedIn(orgA, 'owner');
    assert.equal(
      (await owner.post(`/dashboard/members/${(await membershipOf(orgA, second.userId)).id}/role`, { role: 'admin' })).statusCode,
      303,
    );
    assert.equal((await membershipOf(orgA, second.userId)).role, 'admin');
  });

  test('an admin manages admins and members but cannot make or unmake owners', async () => {
    const admin = await signedIn(orgA, 'admin');
    const member = await signedIn(orgA, 'member');
    const memberMembership = await membershipOf(orgA, member.userId);
    await admin.browser.get('/dashboard/members');
    assert.equal((await admin.browser.post(`/dashboard/members/${memberMembership.id}/role`, { role: 'owner' })).statusCode, 403);
    assert.equal(
      (await admin.browser.post('/dashboard/members/invitations', { email: 'boss@example.com', role: 'owner' })).statusCode,
      403,
    );
    const ownerMembership = await membershipOf(orgA, ownerId);
    assert.equal((await admin.browser.post(`/dashboard/members/${ownerMembership.id}/remove`, {})).statusCode, 403);
    assert.equal((await admin.browser.post(`/dashboard/members/${memberMembership.id}/remove`, {})).statusCode, 303);
    assert.equal(await harness.deps.prisma.membership.count({ where: { id: memberMembership.id } }), 0);
  });

  test('removing someone is confirmed on a page of its own, for owners and admins, which says what it revokes', async () => {
    const leaving = await signedIn(orgA, 'member');
    const membership = await membershipOf(orgA, leaving.userId);
    const members = await owner.get('/dashboard/members');
    assert.match(members.body, new RegExp(`<a href="/dashboard/members/${membership.id}/remove"[^>]*>Remove…</a>`));
    assert.match(members.body, /removing the person revokes them/);
    const confirm = await owner.get(`/dashboard/members/${membership.id}/remove`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /has connected no app here/);
    assert.match(confirm.body, new RegExp(`<form method="post" action="/dashboard/members/${membership.id}/remove"`));
    const member = await signedIn(orgA, 'member');
    assert.equal((await member.browser.get(`/dashboard/members/${membership.id}/remove`)).statusCode, 403);
    assert.equal((await owner.post(`/dashboard/members/${membership.id}/remove`, {})).statusCode, 303);
    assert.equal(await harness.deps.prisma.membership.count({ where: { id: membership.id } }), 0);
  });

  test('pages escape what people typed', async () => {
    const { userId } = await signedIn(orgA, 'member');
    await harness.deps.prisma.user.update({ where: { id: userId }, data: { name: '<script>alert(1)</script>' } });
    const page = await owner.get('/dashboard/members');
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(page.body, /<script>/);
  });
});
