import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  createTestContext,
  freePort,
  type OwnServer,
  type Receiver,
  startOwnNats,
  startReceiver,
  type TestContext,
} from '@voice/kit/testing';
import { type AdminCommand, runAdminCommand } from '../src/admin/commands.js';
import { revokeEverywhere } from '../src/keys/lifecycle.js';
import { recordKeyEnd } from '../src/quota/quota.js';
import { bearer, createGrantWithToken, createOrgWithKey, startGateway, type TestGateway } from './support/harness.js';

const run = promisify(execFile);

describe('revocation reaches every replica through Redis, with NATS down', () => {
  // A NATS of this file's own, which the test stops: the shared one is never touched.
  let nats: OwnServer;
  let ctx: TestContext;
  let replicas: TestGateway[];
  let urls: string[];
  // The mcp service's stand-in, where access tokens are used (their resource is /api/mcp).
  let mcp: Receiver;

  before(async () => {
    nats = await startOwnNats();
    ctx = await createTestContext();
    mcp = await startReceiver();
    replicas = [];
    urls = [];
    for (let i = 0; i < 2; i++) {
      const gateway = await startGateway(ctx, { NATS_URL: nats.url, MCP_URL: new URL(mcp.url).origin }, { auditWorker: false });
      await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      replicas.push(gateway);
      urls.push(`http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`);
    }
  });
  after(async () => {
    // NATS back (if a failed test left it stopped), so the replicas drain and close as they would.
    await nats?.start().catch(() => {});
    for (const gateway of replicas ?? []) await gateway.close();
    await ctx?.cleanup();
    await nats?.close();
    await mcp?.close();
  });

  /** The admin command as the CLI runs it when it cannot reach NATS: no broadcast, only Postgres and Redis. */
  const adminWithoutNats = (command: AdminCommand) => {
    const first = replicas[0];
    assert.ok(first);
    return runAdminCommand(first.deps.prisma, undefined, command, (end) =>
      recordKeyEnd(first.deps.redis, { prefix: first.deps.env.REDIS_PREFIX, ...end }),
    );
  };
  /** NATS back, and every replica connected to it again (the admin commands of the next test broadcast). */
  const restartNats = async () => {
    await nats.start();
    for (const gateway of replicas) {
      for (let connected = false; !connected; ) {
        connected = await gateway.deps.bus.ping().then(
          () => true,
          () => false,
        );
        if (!connected) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  /** The status of a call, or the code of a 401; an access token calls the MCP URL it is for, a key its usage. */
  const statusOn = async (url: string, key: string, method = 'GET', path = key.startsWith('vk_oat_') ? '/api/mcp' : '/api/v1/usage') => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...bearer(key), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: JSON.stringify({ name: 'Nope' }) } : {}),
    });
    const body = (await response.json().catch(() => ({}))) as { error?: { code: string } };
    return response.status === 401 ? body.error?.code : response.status;
  };

  test('a revoked key is refused by both replicas from the next request, with NATS stopped', async () => {
    const first = replicas[0];
    assert.ok(first);
    const { key, keyId } = await createOrgWithKey(first, { quota: 1_000 });
    // Both replicas have the key cached as valid.
    for (const url of urls) assert.equal(await statusOn(url, key), 200);
    await nats.kill();
    await adminWithoutNats({ kind: 'key.revoke', keyId });
    for (const url of urls) assert.equal(await statusOn(url, key), 'revoked');
    await restartNats();
  });

  test("a revoked grant's access tokens are refused by both replicas from the next request, with NATS stopped", async () => {
    const first = replicas[0];
    assert.ok(first);
    const { orgId } = await createOrgWithKey(first, { quota: 1_000 });
    const { grantId, token } = await createGrantWithToken(first, orgId);
    for (const url of urls) assert.equal(await statusOn(url, token), 200);
    await nats.kill();
    // What revokeGrant does, with the broadcast impossible: only Postgres and the end marker in Redis.
    await revokeEverywhere(
      {
        prisma: first.deps.prisma,
        bus: undefined,
        recordKeyEnd: (end) => recordKeyEnd(first.deps.redis, { prefix: first.deps.env.REDIS_PREFIX, ...end }),
      },
      grantId,
      { orgId },
      new Date(),
      'grant',
    );
    for (const url of urls) assert.equal(await statusOn(url, token), 'revoked');
    await restartNats();
  });

  test('revoked comes before scope: a revoked key calling a route outside its scope is 401 revoked on replicas that cached it', async () => {
    const first = replicas[0];
    assert.ok(first);
    const { orgId } = await createOrgWithKey(first, { quota: 1_000 });
    const readKey = (await first.admin({ kind: 'key.create', orgId, scope: 'read', monthlyQuota: 1_000 })) as { id: string; key: string };
    // Cached as valid on both replicas, and refused for its scope before the revocation.
    for (const url of urls) {
      assert.equal(await statusOn(url, readKey.key), 200);
      assert.equal(await statusOn(url, readKey.key, 'POST', '/api/v1/leads'), 403);
    }
    // No broadcast: the replicas' cached copies still say active until KEY_CACHE_TTL_MS (30 s).
    await nats.kill();
    await adminWithoutNats({ kind: 'key.revoke', keyId: readKey.id });
    for (const url of urls) assert.equal(await statusOn(url, readKey.key, 'POST', '/api/v1/leads'), 'revoked', 'not 403 forbidden_scope');
    await restartNats();
  });

  test('revoked comes before resource: a revoked token off its resource is 401 revoked, not invalid_token, on replicas that cached it', async () => {
    const first = replicas[0];
    assert.ok(first);
    const { orgId } = await createOrgWithKey(first, { quota: 1_000 });
    const { grantId, token } = await createGrantWithToken(first, orgId);
    for (const url of urls) {
      assert.equal(await statusOn(url, token), 200);
      assert.equal(await statusOn(url, token, 'GET', '/api/v1/usage'), 'invalid_token');
    }
    await nats.kill();
    await revokeEverywhere(
      {
        prisma: first.deps.prisma,
        bus: undefined,
        recordKeyEnd: (end) => recordKeyEnd(first.deps.redis, { prefix: first.deps.env.REDIS_PREFIX, ...end }),
      },
      grantId,
      { orgId },
      new Date(),
      'grant',
    );
    for (const url of urls) {
      assert.equal(await statusOn(url, token, 'GET', '/api/v1/usage'), 'revoked', 'not 401 invalid_token');
      assert.equal(await statusOn(url, token, 'POST', '/api/mcp/x/leads'), 'revoked');
    }
    await restartNats();
  });

  test('a rotation without grace retires the old key on both replicas from the next request, with NATS stopped', async () => {
    const first = replicas[0];
    assert.ok(first);
    const { key, keyId } = await createOrgWithKey(first, { quota: 1_000 });
    for (const url of urls) assert.equal(await statusOn(url, key), 200);
    await nats.kill();
    const rotated = (await adminWithoutNats({ kind: 'key.rotate', keyId, graceSeconds: 0 })) as { key: string };
    for (const url of urls) {
      assert.equal(await statusOn(url, key), 'revoked');
      assert.equal(await statusOn(url, rotated.key), 200);
    }
    await restartNats();
  });

  test('a rotation with grace keeps the old key working until the grace ends', async () => {
    const first = replicas[0];
    assert.ok(first);
    const { key, keyId } = await createOrgWithKey(first, { quota: 1_000 });
    await adminWithoutNats({ kind: 'key.rotate', keyId, graceSeconds: 3_600 });
    for (const url of urls) assert.equal(await statusOn(url, key), 200);
  });

  test('the CLI exits non-zero, saying so, when it cannot record the revocation in Redis', async () => {
    const first = replicas[0];
    assert.ok(first);
    const { key, keyId } = await createOrgWithKey(first, { quota: 1_000 });
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const failure = await run('npm', ['run', '--silent', 'admin', '--', 'key', 'revoke', keyId], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, ...ctx.env, NATS_URL: nats.url, REDIS_URL: deadRedis },
    }).then(
      () => assert.fail('the CLI should exit non-zero'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failure.code, 1);
    const { error } = JSON.parse(failure.stderr.split('\n')[0] ?? '');
    assert.equal(error.code, 'unavailable');
    assert.match(error.message, /revoked in Postgres, but not recorded in Redis/);
    assert.match(error.message, /Run the command again/);
    // Postgres has it, so replicas refuse the key once their cached copy expires or the broadcast lands.
    const stored = await first.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    assert.equal(stored.status, 'revoked');
    for (const url of urls) assert.equal(await statusOn(url, key), 'revoked', 'the broadcast over NATS still dropped the cached copies');
  });
});
