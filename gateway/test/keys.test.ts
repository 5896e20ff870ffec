import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allOperations, testTwinOf } from '@voice/proto';
import { isProtectedPath, isPublicPath, requiredScope } from '../src/auth/scopes.js';
import { KeyCache } from '../src/keys/cache.js';
import { displayPrefix, generateAccessToken, generateKey, hashKey, isWellFormedAccessToken, isWellFormedKey } from '../src/keys/format.js';
import type { KeyGrant } from '../src/keys/store.js';
import { periodsAt } from '../src/quota/quota.js';

const liveOrg = 'org_2x8Fq0aZ9kLm4Rt7';

describe('key format', () => {
  test('generated keys have the prefix, 38 base62 characters and a valid checksum', () => {
    const key = generateKey(liveOrg);
    assert.match(key, /^vk_live_[0-9A-Za-z]{38}$/);
    assert.equal(isWellFormedKey(key), true);
    assert.notEqual(generateKey(liveOrg), key);
  });

  test("a test twin's keys are vk_test_, well formed, and neither prefix can be swapped onto the other's body", () => {
    const key = generateKey(testTwinOf(liveOrg));
    assert.match(key, /^vk_test_[0-9A-Za-z]{38}$/);
    assert.equal(isWellFormedKey(key), true);
    assert.equal(isWellFormedKey(`vk_live_${key.slice(8)}`), false);
    const live = generateKey(liveOrg);
    assert.equal(isWellFormedKey(`vk_test_${live.slice(8)}`), false);
  });

  test('any single-character change breaks the checksum', () => {
    const key = generateKey(liveOrg);
    for (let position = 8; position < key.length; position++) {
      const changed = key.slice(0, position) + (key[position] === 'x' ? 'y' : 'x') + key.slice(position + 1);
      assert.equal(isWellFormedKey(changed), false, `position ${position}`);
    }
    assert.equal(isWellFormedKey(''), false);
    assert.equal(isWellFormedKey(`sk_live_${key.slice(8)}`), false);
  });

  test('access tokens have their own prefix and checksum, and are never taken for keys or keys for them', () => {
    const token = generateAccessToken();
    assert.match(token, /^vk_oat_[0-9A-Za-z]{38}$/);
    assert.equal(isWellFormedAccessToken(token), true);
    assert.equal(isWellFormedKey(token), false);
    assert.equal(isWellFormedAccessToken(generateKey(liveOrg)), false);
    const changed = `${token.slice(0, 10)}${token[10] === 'x' ? 'y' : 'x'}${token.slice(11)}`;
    assert.equal(isWellFormedAccessToken(changed), false);
    assert.equal(isWellFormedAccessToken(`vk_live_${token.slice(7)}`), false);
  });

  test('the stored hash is SHA-256 hex and the display prefix reveals only the first characters', () => {
    const key = generateKey(liveOrg);
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
    assert.equal(displayPrefix(key), `${key.slice(0, 14)}…`);
  });
});

describe('scopes by effect', () => {
  test('reads need read; writes need read-write; recall, brand scoring and MCP transport need read', () => {
    assert.equal(requiredScope('GET', '/api/v1/leads'), 'read');
    assert.equal(requiredScope('POST', '/api/v1/leads'), 'read-write');
    assert.equal(requiredScope('PATCH', '/api/v1/leads/lead_1'), 'read-write');
    assert.equal(requiredScope('DELETE', '/api/v1/phone/dnc/dnc_1'), 'read-write');
    assert.equal(requiredScope('POST', '/api/v1/llm-recall'), 'read');
    assert.equal(requiredScope('POST', '/api/mcp'), 'read');
    assert.equal(requiredScope('POST', '/api/v1/llm-recall-other'), 'read-write');
  });

  test("every operation's REST route needs exactly the operation's scope, its path parameters filled in", () => {
    let routes = 0;
    for (const operation of allOperations) {
      for (const route of operation.http) {
        const path = route.path.replace(/:\w+/g, 'x_1');
        assert.equal(requiredScope(route.method, path), operation.scope, `${route.method} ${path} (${operation.name})`);
        if (route.method === 'GET') assert.equal(requiredScope('HEAD', path), operation.scope, `HEAD ${path}`);
        routes += 1;
      }
    }
    assert.ok(routes >= 78, `${routes} routes`); // every documented route but the public marketing audit's
    // A path no operation declares needs what its method says, never less.
    assert.equal(requiredScope('GET', '/api/v1/nothing-here'), 'read');
    assert.equal(requiredScope('POST', '/api/v1/phone/calls/x_1/nothing'), 'read-write');
    assert.equal(requiredScope('PUT', '/api/v1/llm-recall'), 'read-write');
  });

  test("the MCP endpoint's toolset and read-only URLs need read, as /api/mcp does; nothing near them", () => {
    for (const path of ['/api/mcp/readonly', '/api/mcp/x/leads,calls', '/api/mcp/x/billing/readonly', '/api/mcp/x/nope']) {
      assert.equal(requiredScope('POST', path), 'read', path);
      assert.equal(requiredScope('DELETE', path), 'read', path);
      assert.equal(isProtectedPath(path), true, path);
    }
    for (const path of ['/api/mcpx', '/api/mcp/x/leads/more', '/api/mcp/readonly/x/leads']) {
      assert.equal(requiredScope('POST', path), 'read-write', path);
    }
  });

  test('public and protected paths', () => {
    assert.equal(isPublicPath('/api/v1/openapi.json'), true);
    assert.equal(isPublicPath('/api/hooks/twilio/status'), true);
    assert.equal(isProtectedPath('/api/v1/openapi.json'), false);
    assert.equal(isProtectedPath('/api/v1/leads'), true);
    assert.equal(isProtectedPath('/api/mcp'), true);
    assert.equal(isProtectedPath('/healthz'), false);
    // The console's pages need no key (the console checks its own session); look-alike paths are not its.
    assert.equal(isPublicPath('/dashboard'), true);
    assert.equal(isPublicPath('/dashboard/settings/api'), true);
    assert.equal(isPublicPath('/dashboards'), false);
    assert.equal(isProtectedPath('/dashboard/members'), false);
  });
});

describe('quota periods', () => {
  test('months and days are UTC calendar periods', () => {
    const periods = periodsAt(new Date('2026-12-31T23:59:59.999Z'));
    assert.equal(periods.monthLabel, '202612');
    assert.equal(periods.dayLabel, '20261231');
    assert.equal(periods.monthEnd.toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(periods.dayEnd.toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(periodsAt(new Date('2028-02-28T12:00:00Z')).dayEnd.toISOString(), '2028-02-29T00:00:00.000Z');
  });
});

describe('key cache', () => {
  const grant = (orgId: string): KeyGrant => ({
    kind: 'key',
    id: 'key_1',
    orgId,
    lineageId: 'key_1',
    scope: 'read',
    monthlyQuota: 1,
    status: 'active',
    expiresAt: null,
    plan: 'pro',
    ownerUserId: null,
    resource: null,
  });

  test('serves from memory within the TTL, shares concurrent lookups, and forgets on invalidation', async () => {
    let loads = 0;
    let nowMs = 0;
    const cache = new KeyCache(
      async () => {
        loads++;
        return grant('org_a');
      },
      { ttlMs: 1_000, unknownTtlMs: 100, maxEntries: 10, nowMs: () => nowMs },
    );
    await Promise.all([cache.get('h'), cache.get('h'), cache.get('h')]);
    assert.equal(loads, 1);
    nowMs = 999;
    await cache.get('h');
    assert.equal(loads, 1);
    nowMs = 1_000;
    await cache.get('h');
    assert.equal(loads, 2);
    cache.invalidate({ orgId: 'org_a' });
    await cache.get('h');
    assert.equal(loads, 3);
    cache.invalidate({ hashes: ['h'] });
    await cache.get('h');
    assert.equal(loads, 4);
    // A grant's revocation drops every cached access token of it, by the grant's id.
    await cache.get('h2');
    assert.equal(loads, 5);
    cache.invalidate({ keyIds: ['key_other'] });
    assert.equal(cache.cached('h')?.id, 'key_1');
    cache.invalidate({ keyIds: ['key_1'] });
    assert.equal(cache.cached('h'), undefined);
    assert.equal(cache.cached('h2'), undefined);
  });

  test('the synchronous peek answers only a fresh, known, not invalidated key', async () => {
    let nowMs = 0;
    let known = true;
    const cache = new KeyCache(async () => (known ? grant('org_a') : null), {
      ttlMs: 1_000,
      unknownTtlMs: 100,
      maxEntries: 10,
      nowMs: () => nowMs,
    });
    assert.equal(cache.cached('h'), undefined, 'nothing before the first lookup');
    await cache.get('h');
    assert.equal(cache.cached('h')?.orgId, 'org_a');
    nowMs = 1_000;
    assert.equal(cache.cached('h'), undefined, 'expired');
    await cache.get('h');
    cache.invalidate({ hashes: ['h'] });
    assert.equal(cache.cached('h'), undefined, 'invalidated');
    known = false;
    await cache.get('unknown');
    assert.equal(cache.cached('unknown'), undefined, 'an unknown key is never answered from the peek');
  });

  test('a lookup that started before an invalidation does not store its stale answer', async () => {
    let release: (value: KeyGrant) => void = () => {};
    let loads = 0;
    const cache = new KeyCache(
      () => {
        loads++;
        return new Promise<KeyGrant>((resolve) => {
          release = resolve;
        });
      },
      { ttlMs: 60_000, unknownTtlMs: 100, maxEntries: 10 },
    );
    const pending = cache.get('h');
    cache.invalidate({ hashes: ['h'] });
    release(grant('org_a'));
    await pending;
    const again = cache.get('h');
    release(grant('org_a'));
    await again;
    assert.equal(loads, 2);
  });
});
