import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type Receiver, startReceiver, type TestContext } from '@voice/kit/testing';
import { oauthRpc } from '@voice/proto';
import { quotaKeys } from '../src/quota/quota.js';
import { bearer, createGrantWithToken, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

describe('two gateway replicas share one exact quota and hear key changes at once', () => {
  let ctx: TestContext;
  let first: TestGateway;
  let second: TestGateway;
  let urls: string[];
  // The mcp service's stand-in, where access tokens are used (their resource is /api/mcp).
  let mcp: Receiver;

  before(async () => {
    ctx = await createTestContext();
    mcp = await startReceiver();
    first = await startGateway(ctx, { MCP_URL: new URL(mcp.url).origin }, { auditWorker: false });
    second = await startGateway(ctx, { MCP_URL: new URL(mcp.url).origin }, { auditWorker: false });
    urls = [];
    for (const gateway of [first, second]) {
      await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      urls.push(`http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`);
    }
  });
  after(async () => {
    await first.close();
    await second.close();
    await mcp.close();
    await ctx.cleanup();
  });

  test('quota 100, 1,000 requests at once across both: exactly 100 succeed, 900 get 429, the counter reads 100', async () => {
    const { key, orgId, keyId } = await createOrgWithKey(first, { quota: 100 });
    const statuses = await Promise.all(
      Array.from({ length: 1_000 }, async (_, index) => {
        const response = await fetch(`${urls[index % 2]}/api/v1/usage`, { headers: bearer(key) });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    assert.equal(statuses.filter((status) => status === 200).length, 100);
    assert.equal(statuses.filter((status) => status === 429).length, 900);
    assert.equal(await first.deps.redis.get(quotaKeys(ctx.redisPrefix, orgId, keyId, new Date()).monthly), '100');
  });

  test('a revocation takes effect on every replica within one second', async () => {
    const { key, keyId } = await createOrgWithKey(first, { quota: 1_000 });
    // Both replicas have the key cached as valid.
    for (const url of urls) assert.equal((await fetch(`${url}/api/v1/usage`, { headers: bearer(key) })).status, 200);
    await first.admin({ kind: 'key.revoke', keyId });
    const deadline = Date.now() + 1_000;
    const revokedOn = new Set<string>();
    while (revokedOn.size < urls.length && Date.now() < deadline) {
      for (const url of urls) {
        const response = await fetch(`${url}/api/v1/usage`, { headers: bearer(key) });
        if (response.status === 401) revokedOn.add(url);
      }
    }
    assert.equal(revokedOn.size, 2, 'both replicas refuse the revoked key within one second');
  });

  test("a grant's revocation ends its access tokens on every replica within one second", async () => {
    const { orgId } = await createOrgWithKey(first, { quota: 1_000 });
    const { grantId, token, person } = await createGrantWithToken(first, orgId);
    const other = (await first.deps.bus.call(oauthRpc.issueAccessToken, person, { grant_id: grantId })).access_token;
    // Both replicas have both tokens cached as valid.
    for (const url of urls)
      for (const credential of [token, other]) assert.equal((await fetch(`${url}/api/mcp`, { headers: bearer(credential) })).status, 200);
    await first.deps.bus.call(oauthRpc.revokeGrant, person, { grant_id: grantId });
    const deadline = Date.now() + 1_000;
    const refused = new Set<string>();
    while (refused.size < urls.length * 2 && Date.now() < deadline) {
      for (const url of urls) {
        for (const credential of [token, other]) {
          const response = await fetch(`${url}/api/mcp`, { headers: bearer(credential) });
          const body = (await response.json()) as { error?: { code: string } };
          if (response.status === 401 && body.error?.code === 'revoked') refused.add(`${url} ${credential}`);
        }
      }
    }
    assert.equal(refused.size, 4, "both replicas refuse both of the revoked grant's tokens within one second");
  });

  test('a rotation with no grace and a plan change reach the other replica too', async () => {
    const { key, keyId, orgId } = await createOrgWithKey(second, { quota: 1_000 });
    assert.equal((await fetch(`${urls[0]}/api/v1/usage`, { headers: bearer(key) })).status, 200);
    await second.admin({ kind: 'org.set-plan', orgId, plan: 'lite' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const write = await fetch(`${urls[0]}/api/v1/leads`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(write.status, 403, 'the key was narrowed to read with the move to Lite');
    await second.admin({ kind: 'key.rotate', keyId, graceSeconds: 0 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await fetch(`${urls[0]}/api/v1/usage`, { headers: bearer(key) })).status, 401);
  });
});
