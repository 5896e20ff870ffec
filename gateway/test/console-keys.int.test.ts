import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '@voice/kit';
import { createTestContext, type TestContext, testIdentity } from '@voice/kit/testing';
import { gatewayRpc } from '@voice/proto';
import { createOrgWithKey, rejection, startGateway, type TestGateway } from './support/harness.js';

/** The console's key operations over NATS, as the console calls them for a signed-in person. */
describe('the console key operations', () => {
  let ctx: TestContext;
  let gateway: TestGateway;

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx, {}, { auditWorker: false });
  });
  after(async () => {
    await gateway.close();
    await ctx.cleanup();
  });

  const person = (orgId: string, userId = newId('user')) => testIdentity({ org_id: orgId, key_id: userId, user_id: userId });

  test('an API key identity (no user_id) cannot use them', async () => {
    const { orgId, keyId } = await createOrgWithKey(gateway);
    const apiKey = testIdentity({ org_id: orgId, key_id: keyId });
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.listKeys, apiKey, {}))).code, 'forbidden');
    const create = gateway.deps.bus.call(gatewayRpc.createKey, apiKey, { name: 'x', scope: 'read', monthly_quota: 10 });
    assert.equal((await rejection(create)).code, 'forbidden');
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.getUsageHistory, apiKey, {}))).code, 'forbidden');
    assert.equal(await gateway.deps.prisma.apiKey.count({ where: { orgId } }), 1);
  });

  test('a console action made through another service is audited with the person as actor; a key or a member cannot record one', async () => {
    const { orgId, keyId } = await createOrgWithKey(gateway);
    const userId = newId('user');
    const action = { path: '/dashboard/calls/call_0123456789abcdef/cancel', status: 200, latency_ms: 12 };
    assert.deepEqual(await gateway.deps.bus.call(gatewayRpc.recordConsoleAction, person(orgId, userId), action), { recorded: true });
    const apiKey = testIdentity({ org_id: orgId, key_id: keyId });
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.recordConsoleAction, apiKey, action))).code, 'forbidden');
    const member = { ...person(orgId), scope: 'read' as const };
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.recordConsoleAction, member, action))).code, 'forbidden_scope');
    const outside = { ...action, path: '/api/v1/phone/calls' };
    assert.equal((await rejection(gateway.deps.bus.call(gatewayRpc.recordConsoleAction, person(orgId), outside))).code, 'invalid_request');
    const audit = await gateway.deps.bus.call(gatewayRpc.listAuditLog, person(orgId), { limit: 10 });
    assert.deepEqual(
      audit.data.map((record) => [record.actor_type, record.key_id, record.method, record.path, record.status]),
      [['user', userId, 'POST', action.path, 200]],
    );
  });

  test("the organization is the identity's: another organization's key id is not found, and unchanged", async () => {
    const victim = await createOrgWithKey(gateway);
    const { orgId } = await createOrgWithKey(gateway);
    const before = await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: victim.keyId } });
    const rotate = gateway.deps.bus.call(gatewayRpc.rotateKey, person(orgId), { key_id: victim.keyId, grace_seconds: 0 });
    assert.equal((await rejection(rotate)).code, 'not_found');
    const revoke = gateway.deps.bus.call(gatewayRpc.revokeKey, person(orgId), { key_id: victim.keyId });
    assert.equal((await rejection(revoke)).code, 'not_found');
    assert.deepEqual(await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: victim.keyId } }), before);
    const get = gateway.deps.bus.call(gatewayRpc.getKey, person(orgId), { key_id: victim.keyId });
    assert.equal((await rejection(get)).code, 'not_found');
    const listed = await gateway.deps.bus.call(gatewayRpc.listKeys, person(orgId), {});
    assert.deepEqual(
      listed.data.map((key) => key.org_id),
      [orgId],
    );
  });

  test("getKey reads one key of the person's organization, with this month's use, and no secret; an unknown id is not found", async () => {
    const { orgId, keyId, key } = await createOrgWithKey(gateway);
    await gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { authorization: `Bearer ${key}` } });
    const got = await gateway.deps.bus.call(gatewayRpc.getKey, person(orgId), { key_id: keyId });
    const listed = (await gateway.deps.bus.call(gatewayRpc.listKeys, person(orgId), {})).data.find((candidate) => candidate.id === keyId);
    assert.deepEqual(got, listed);
    assert.equal(got.org_id, orgId);
    assert.equal(got.monthly_used, 1);
    assert.doesNotMatch(JSON.stringify(got), new RegExp(key));
    const unknown = gateway.deps.bus.call(gatewayRpc.getKey, person(orgId), { key_id: newId('key') });
    assert.equal((await rejection(unknown)).code, 'not_found');
    const apiKey = gateway.deps.bus.call(gatewayRpc.getKey, testIdentity({ org_id: orgId, key_id: keyId }), { key_id: keyId });
    assert.equal((await rejection(apiKey)).code, 'forbidden');
  });

  test("listKeys pages with limit and cursor, newest first, each key once; another organization's cursor is invalid_cursor", async () => {
    const { orgId } = await createOrgWithKey(gateway);
    for (const name of ['Second', 'Third']) {
      await gateway.deps.bus.call(gatewayRpc.createKey, person(orgId), { name, scope: 'read', monthly_quota: 10 });
    }
    const all = await gateway.deps.bus.call(gatewayRpc.listKeys, person(orgId), {});
    assert.equal(all.data.length, 3);
    assert.equal(all.has_more, false);
    const first = await gateway.deps.bus.call(gatewayRpc.listKeys, person(orgId), { limit: 2 });
    assert.equal(first.has_more, true);
    assert.ok(first.next_cursor);
    const second = await gateway.deps.bus.call(gatewayRpc.listKeys, person(orgId), { limit: 2, cursor: first.next_cursor });
    assert.equal(second.has_more, false);
    assert.deepEqual(
      [...first.data, ...second.data].map((key) => key.id),
      all.data.map((key) => key.id),
    );
    const other = await createOrgWithKey(gateway);
    const replayed = gateway.deps.bus.call(gatewayRpc.listKeys, person(other.orgId), { limit: 2, cursor: first.next_cursor });
    assert.equal((await rejection(replayed)).code, 'invalid_cursor');
  });

  test('a rotated key keeps its name, quota, lineage and expiry; the old one ends at the grace or its own expiry, whichever is first', async () => {
    const { orgId } = await createOrgWithKey(gateway);
    const userId = newId('user');
    const expiresAt = new Date(Date.now() + 30 * 60_000);
    const created = await gateway.deps.bus.call(gatewayRpc.createKey, person(orgId, userId), {
      name: 'Reports',
      scope: 'read',
      monthly_quota: 77,
      expires_at: expiresAt.toISOString(),
    });
    assert.equal(created.record.created_by, userId);
    assert.equal(created.record.display_suffix, created.key.slice(-4));
    assert.doesNotMatch(JSON.stringify(created.record), new RegExp(created.key));
    const rotated = await gateway.deps.bus.call(gatewayRpc.rotateKey, person(orgId, userId), {
      key_id: created.record.id,
      grace_seconds: 3_600,
    });
    assert.equal(rotated.record.name, 'Reports');
    assert.equal(rotated.record.monthly_quota, 77);
    assert.equal(rotated.record.expires_at, expiresAt.toISOString());
    assert.equal(rotated.replaces.expires_at, expiresAt.toISOString(), 'the grace hour does not outlive the key');
    assert.equal(rotated.replaces.rotated_to_id, rotated.record.id);
    const rows = await gateway.deps.prisma.apiKey.findMany({ where: { id: { in: [created.record.id, rotated.record.id] } } });
    assert.deepEqual(new Set(rows.map((row) => row.lineageId)), new Set([created.record.id]));

    const organization = await gateway.deps.bus.call(gatewayRpc.getOrganization, person(orgId), {});
    assert.equal(organization.id, orgId);
    assert.equal(organization.counted_keys, 2, "the operator's key and the successor; the rotated one no longer counts");

    const audit = await gateway.deps.bus.call(gatewayRpc.listAuditLog, person(orgId), { limit: 10 });
    assert.deepEqual(
      audit.data.map((record) => [record.actor_type, record.key_id, record.method]),
      [
        ['user', userId, 'POST'],
        ['user', userId, 'POST'],
      ],
    );
  });
});
