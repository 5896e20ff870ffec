// Owners rename their organization on the account page; the name is the gateway's (gatewayRpc.renameOrganization),
// so the test goes through a real gateway, and reads its audit log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { Browser, invitePerson } from './support/harness.js';

const accountPath = '/dashboard/settings/account';
const renamePath = `${accountPath}/organization`;

describe('renaming the organization', () => {
  let platform: Platform<'console'>;

  before(async () => {
    platform = await startPlatform({ services: ['console'] });
  });
  after(() => platform?.close());

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.7');
    assert.equal((await browser.signIn(person.email, person.password)).statusCode, 303);
    await browser.get(accountPath);
    return { browser, userId: person.userId };
  }
  const nameOf = async (orgId: string) =>
    (await platform.gateway.deps.prisma.organization.findUniqueOrThrow({ where: { id: orgId } })).name;

  test('an owner renames it; the pages show the new name; the audit log has the person as actor', async () => {
    const { orgId } = await platform.org();
    const other = await platform.org();
    const before = await nameOf(other.orgId);
    const { browser, userId } = await signedIn(orgId, 'owner');
    const renamed = await browser.post(renamePath, { organization_name: '  Acme & Sons  ' });
    assert.equal(renamed.statusCode, 303);
    assert.equal(await nameOf(orgId), 'Acme & Sons');
    assert.equal(await nameOf(other.orgId), before, 'no other organization changes');
    const page = await browser.get(accountPath);
    assert.match(page.body, /Organization renamed\./);
    assert.match(page.body, /value="Acme &amp; Sons"/);
    const records = await platform.gateway.deps.prisma.auditRecord.findMany({ where: { orgId, actorType: 'user', path: renamePath } });
    assert.equal(records.length, 1);
    assert.equal(records[0]?.keyId, userId);
    assert.equal(records[0]?.status, 303);
  });

  test("the gateway's refusal of the name shows on the field, and nothing changes", async () => {
    const { orgId } = await platform.org();
    const before = await nameOf(orgId);
    const { browser } = await signedIn(orgId, 'owner');
    const empty = await browser.post(renamePath, { organization_name: '   ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /id="organization-name-error" class="field-error">The name must be 1 to 200 characters/);
    const long = await browser.post(renamePath, { organization_name: 'x'.repeat(201) });
    assert.equal(long.statusCode, 400);
    assert.equal(await nameOf(orgId), before);
  });

  test('admins and members cannot rename it: no form, and a hand-made POST with a valid form token is 403', async () => {
    const { orgId } = await platform.org();
    const before = await nameOf(orgId);
    for (const role of ['admin', 'member'] as const) {
      const { browser } = await signedIn(orgId, role);
      const page = await browser.get(accountPath);
      assert.doesNotMatch(page.body, /name="organization_name"/, `${role}: no rename form`);
      const refused = await browser.post(renamePath, { organization_name: `Taken over by an ${role}` });
      assert.equal(refused.statusCode, 403, role);
    }
    assert.equal(await nameOf(orgId), before);
  });
});
