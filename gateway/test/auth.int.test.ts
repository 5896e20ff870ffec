import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, tamperedCredential } from '@voice/kit/testing';
import { generateKey, isWellFormedKey } from '../src/keys/format.js';
import { bearer, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

describe('gateway authentication, in the order API.md fixes', () => {
  let ctx: TestContext;
  let gateway: TestGateway;

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx);
  });
  after(async () => {
    await gateway.close();
    await ctx.cleanup();
  });

  const usage = (headers: Record<string, string>) => gateway.app.inject({ method: 'GET', url: '/api/v1/usage', headers });

  test('no Authorization header is 401 missing, in the envelope with a request id', async () => {
    const response = await usage({});
    assert.equal(response.statusCode, 401);
    const body = response.json();
    assert.equal(body.error.code, 'missing');
    assert.match(body.error.request_id, /^req_/);
    assert.equal(response.headers['request-id'], body.error.request_id);
  });

  test('a malformed key, a bad checksum and a well-formed unknown key are 401 unknown_key', async () => {
    const { key } = await createOrgWithKey(gateway);
    for (const candidate of ['nonsense', 'Bearer', `${key}x`, tamperedCredential(key)]) {
      const response = await usage(bearer(candidate));
      assert.equal(response.statusCode, 401, candidate);
      assert.equal(response.json().error.code, 'unknown_key');
    }
    const neverIssued = generateKey('org_2x8Fq0aZ9kLm4Rt7');
    assert.equal(isWellFormedKey(neverIssued), true);
    const response = await usage(bearer(neverIssued));
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().error.code, 'unknown_key');
  });

  test('a used key records when it was last used', async () => {
    const { key, keyId } = await createOrgWithKey(gateway);
    assert.equal((await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } })).lastUsedAt, null);
    await usage(bearer(key));
    let lastUsedAt: Date | null = null;
    for (let attempt = 0; attempt < 50 && lastUsedAt === null; attempt++) {
      lastUsedAt = (await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } })).lastUsedAt;
      if (lastUsedAt === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(lastUsedAt instanceof Date);
  });

  test('a revoked key is 401 revoked', async () => {
    const { key, keyId } = await createOrgWithKey(gateway);
    assert.equal((await usage(bearer(key))).statusCode, 200);
    await gateway.admin({ kind: 'key.revoke', keyId });
    const response = await usage(bearer(key));
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().error.code, 'revoked');
  });

  test('a rotated key works through its grace period, then is revoked; the new key works at once', async () => {
    const { key, keyId } = await createOrgWithKey(gateway);
    const rotated = (await gateway.admin({ kind: 'key.rotate', keyId, graceSeconds: 3600 })) as { key: string; id: string };
    assert.notEqual(rotated.key, key);
    assert.equal((await usage(bearer(key))).statusCode, 200);
    assert.equal((await usage(bearer(rotated.key))).statusCode, 200);
    await gateway.admin({ kind: 'key.rotate', keyId: rotated.id, graceSeconds: 0 });
    const response = await usage(bearer(rotated.key));
    assert.equal(response.json().error.code, 'revoked');
  });

  test('a read key is 403 forbidden_scope on a write route and passes on a read route', async () => {
    const { key } = await createOrgWithKey(gateway, { scope: 'read' });
    const write = await gateway.app.inject({ method: 'POST', url: '/api/v1/leads', headers: bearer(key), payload: {} });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().error.code, 'forbidden_scope');
    assert.equal((await usage(bearer(key))).statusCode, 200);
  });

  test('every authenticated response carries the rate-limit headers and a request id', async () => {
    const { key } = await createOrgWithKey(gateway, { quota: 50 });
    const response = await usage(bearer(key));
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-ratelimit-limit'], '50');
    assert.equal(response.headers['x-ratelimit-remaining'], '49');
    const reset = Number(response.headers['x-ratelimit-reset']);
    const now = new Date();
    assert.equal(reset, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000);
    assert.match(String(response.headers['request-id']), /^req_/);
  });

  test('the key is never forwarded and never appears in logs of the audit', async () => {
    const { key, orgId } = await createOrgWithKey(gateway);
    await usage(bearer(key));
    const usageBody = (await usage(bearer(key))).json();
    assert.equal(JSON.stringify(usageBody).includes(key), false);
    const stored = await gateway.deps.prisma.apiKey.findMany({ where: { orgId } });
    assert.equal(JSON.stringify(stored).includes(key), false);
  });
});
