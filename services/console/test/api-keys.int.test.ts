import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform, type TestGateway } from '@voice/gateway/testing';
import { Browser, invitePerson } from './support/harness.js';
import { type StandInTelephony, startStandInTelephony } from './support/telephony.js';

const rawKeyPattern = /vk_live_[0-9A-Za-z]{38}/g;
const page = '/dashboard/settings/api';

describe('the API keys page, through the gateway', () => {
  let platform: Platform<'console'>;
  let gateway: TestGateway;
  let api: StandInTelephony;

  before(async () => {
    api = await startStandInTelephony();
    platform = await startPlatform({ services: ['console'], gateway: { TELEPHONY_URL: api.url } });
    gateway = platform.gateway;
  });
  after(async () => {
    await platform.close();
    api.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(gateway.app, '198.51.100.7');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return { browser, userId: person.userId };
  }

  const keysOf = (orgId: string) =>
    gateway.deps.prisma.apiKey.findMany({
      where: { orgId },
      orderBy: { createdAt: 'asc' },
      select: { id: true, name: true, status: true, expiresAt: true },
    });
  const calls = (key: string) => gateway.app.inject({ method: 'GET', url: '/api/v1/phone/calls', headers: bearer(key) });
  const newKeyIn = (body: string) => {
    const found = body.match(rawKeyPattern) ?? [];
    assert.ok(found.length > 0, 'the page shows the new key');
    return found[0] as string;
  };

  test('an owner creates a key, sees it once, uses it, rotates it with a grace hour and revokes it; the audit log names the person', async () => {
    const { orgId, key: operatorKey } = await platform.org({ plan: 'pro' });
    const { browser, userId } = await signedIn(orgId, 'owner');
    const list = await browser.get(page);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<a href="\/dashboard\/settings\/api" aria-current="page">API keys<\/a>/);
    for (const id of ['key-name', 'key-scope', 'key-quota', 'key-expiry']) assert.match(list.body, new RegExp(`id="${id}"`));

    const created = await browser.post(`${page}/keys`, {
      name: 'Billing sync',
      scope: 'read-write',
      monthly_quota: '5000',
      expires_on: '',
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.match(created.headers['cache-control'] as string, /no-store/);
    const key = newKeyIn(created.body);
    assert.match(created.body, /will not be shown again/);
    assert.ok(created.body.includes(`curl -H "Authorization: Bearer ${key}" http`), 'a curl example with the key');
    assert.match(created.body, /<script src="\/dashboard\/static\/copy\.js" defer><\/script>/);
    const script = await browser.get('/dashboard/static/copy.js');
    assert.equal(script.statusCode, 200);
    assert.doesNotMatch(script.body, rawKeyPattern);

    const afterwards = await browser.get(page);
    assert.doesNotMatch(afterwards.body, rawKeyPattern, 'the list never shows a whole key');
    assert.match(afterwards.body, /Billing sync/);
    assert.match(afterwards.body, new RegExp(`${key.slice(0, 14)}…${key.slice(-4)}`));
    assert.match(afterwards.body, /0 of 5,000/);

    assert.equal((await calls(key)).statusCode, 200);
    const [, stored] = await keysOf(orgId);
    assert.equal(stored?.name, 'Billing sync');
    const keyId = stored?.id as string;

    const rotated = await browser.post(`${page}/keys/${keyId}/rotate`, { grace_seconds: '3600' });
    assert.equal(rotated.statusCode, 201, rotated.body);
    const successor = newKeyIn(rotated.body);
    assert.notEqual(successor, key);
    assert.equal((await calls(key)).statusCode, 200, 'the old key works during its grace hour');
    assert.equal((await calls(successor)).statusCode, 200);

    const successorId = (await keysOf(orgId)).find((row) => row.name === 'Billing sync' && row.id !== keyId)?.id as string;
    const confirm = await browser.get(`${page}/keys/${successorId}/revoke`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /id="key-revoke-confirm"/);
    const revoked = await browser.post(`${page}/keys/${successorId}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers.location, page);
    const refused = await calls(successor);
    assert.equal(refused.statusCode, 401);
    assert.equal((refused.json() as { error: { code: string } }).error.code, 'revoked');

    const audit = await gateway.app.inject({ method: 'GET', url: '/api/v1/audit-log?limit=100', headers: bearer(operatorKey) });
    assert.equal(audit.statusCode, 200);
    const records = (audit.json() as { data: Array<{ actor_type: string; key_id: string; path: string }> }).data;
    const byPerson = records.filter((record) => record.actor_type === 'user').map((record) => [record.key_id, record.path]);
    assert.deepEqual(
      byPerson.sort(),
      [
        [userId, `${page}/keys`],
        [userId, `${page}/keys/${keyId}/rotate`],
        [userId, `${page}/keys/${successorId}/revoke`],
      ].sort(),
    );
  });

  test('a member sees the keys but no buttons, and a hand-made POST is refused with nothing changed', async () => {
    const { orgId, keyId } = await platform.org({ plan: 'pro' });
    const { browser } = await signedIn(orgId, 'member');
    const list = await browser.get(page);
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /id="key-name"|Rotate|Revoke/);
    assert.equal((await browser.get(`${page}/keys/${keyId}/revoke`)).statusCode, 403);
    const before = await keysOf(orgId);
    for (const [url, fields] of [
      [`${page}/keys`, { name: 'Mine', scope: 'read', monthly_quota: '10' }],
      [`${page}/keys/${keyId}/rotate`, { grace_seconds: '0' }],
      [`${page}/keys/${keyId}/revoke`, {}],
    ] as const) {
      const response = await browser.post(url, fields);
      assert.equal(response.statusCode, 403, url);
    }
    assert.deepEqual(await keysOf(orgId), before);
  });

  test("another organization's key cannot be rotated or revoked by changing the id", async () => {
    const victim = await platform.org({ plan: 'pro' });
    const { orgId } = await platform.org({ plan: 'pro' });
    const { browser } = await signedIn(orgId, 'admin');
    await browser.get(page);
    const before = await keysOf(victim.orgId);
    assert.equal((await browser.post(`${page}/keys/${victim.keyId}/rotate`, { grace_seconds: '0' })).statusCode, 404);
    assert.equal((await browser.post(`${page}/keys/${victim.keyId}/revoke`, {})).statusCode, 404);
    assert.equal((await browser.get(`${page}/keys/${victim.keyId}/revoke`)).statusCode, 404);
    assert.deepEqual(await keysOf(victim.orgId), before);
    assert.equal((await calls(victim.key)).statusCode, 200);
    const list = await browser.get(page);
    assert.doesNotMatch(list.body, new RegExp(victim.keyId));
  });

  /** Keys straight into the gateway's table, an hour apart in pairs (a pair shares its created_at, so the id breaks the tie). */
  const seedKeys = (orgId: string, count: number) =>
    gateway.deps.prisma.$executeRawUnsafe(
      `INSERT INTO api_keys (id, org_id, hash, display_prefix, display_suffix, name, scope, monthly_quota, lineage_id, created_at)
       SELECT 'key_pg' || substr(md5($1 || i), 1, 20), $1, md5('page' || $1 || i) || md5('key' || $1 || i), 'vk_live_' || lpad(i::text, 6, '0'),
              lpad(to_hex(i), 4, '0'), 'Paged key ' || i, 'read'::"KeyScope", 100, 'key_pg' || substr(md5($1 || i), 1, 20),
              date_trunc('second', now()) - ((1 + i / 2) || ' hours')::interval
       FROM generate_series(1, $2::int) AS i`,
      orgId,
      count,
    );
  const keyIdsIn = (body: string) => [...body.matchAll(/\/keys\/(key_[0-9A-Za-z_]+)\/rotate/g)].map((match) => match[1] as string);
  const nextLinkIn = (body: string) => body.match(/<a id="keys-next" href="([^"]+)"/)?.[1]?.replaceAll('&amp;', '&');

  test("more keys than a page: 'Older keys' shows the rest, newest first, none twice; the limit counts them all; a bad or another organization's cursor is 400", async () => {
    const { orgId } = await platform.org({ plan: 'starter' });
    await seedKeys(orgId, 60);
    const { browser } = await signedIn(orgId, 'owner');
    const first = await browser.get(page);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /The starter plan allows 5 keys; 61 in use\./);
    const firstIds = keyIdsIn(first.body);
    assert.equal(firstIds.length, 50);
    const next = nextLinkIn(first.body);
    assert.ok(next, 'the first page links to the older keys');
    const second = await browser.get(next);
    assert.equal(second.statusCode, 200);
    assert.equal(nextLinkIn(second.body), undefined);
    const all = [...firstIds, ...keyIdsIn(second.body)];
    const expected = await gateway.deps.prisma.apiKey.findMany({
      where: { orgId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    assert.deepEqual(
      all,
      expected.map((key) => key.id),
    );
    assert.equal(new Set(all).size, 61);

    const other = await platform.org({ plan: 'starter' });
    await seedKeys(other.orgId, 3);
    const { browser: outsider } = await signedIn(other.orgId, 'owner');
    const replayed = await outsider.get(next);
    assert.equal(replayed.statusCode, 400);
    for (const id of all) assert.doesNotMatch(replayed.body, new RegExp(id));
    assert.equal((await browser.get(`${page}?cursor=not-a-cursor`)).statusCode, 400);
    assert.equal((await browser.get(`${page}?cursor=${'x'.repeat(600)}`)).statusCode, 400);
  });

  test('Lite: read-only scope only, and at its one key the limit is shown and a further key refused', async () => {
    const org = (await gateway.admin({ kind: 'org.create', name: 'Small', plan: 'lite' })) as { id: string };
    const { browser } = await signedIn(org.id, 'owner');
    const list = await browser.get(page);
    assert.doesNotMatch(list.body, /value="read-write"/);
    assert.match(list.body, /The lite plan allows read-only keys/);
    const readWrite = await browser.post(`${page}/keys`, { name: 'Writer', scope: 'read-write', monthly_quota: '100' });
    assert.equal(readWrite.statusCode, 403);
    assert.match(readWrite.body, /role="alert">The lite plan allows read-only keys/);
    const first = await browser.post(`${page}/keys`, { name: 'Reader', scope: 'read', monthly_quota: '100' });
    assert.equal(first.statusCode, 201, first.body);
    const atLimit = await browser.get(page);
    assert.match(atLimit.body, /id="key-limit">The lite plan allows 1 key; 1 in use\. Revoke a key or change the plan to create another\./);
    assert.doesNotMatch(atLimit.body, /id="key-name"/);
    const second = await browser.post(`${page}/keys`, { name: 'Another', scope: 'read', monthly_quota: '100' });
    assert.equal(second.statusCode, 403);
    assert.match(second.body, /role="alert">The lite plan allows 1 key/);
    assert.equal((await keysOf(org.id)).length, 1);
  });
});
