import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ApiError } from '@voice/kit';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import type { EventEnvelope } from '@voice/proto';
import { hashKey, isWellFormedKey } from '../src/keys/format.js';
import { startGateway, type TestGateway } from './support/harness.js';

const run = promisify(execFile);

describe('operator CLI and plan rules', () => {
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

  const admin = (args: string[]) =>
    run('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, ...ctx.env },
    });

  test('npm run admin prints JSON; the raw key is shown once and only its hash is stored', async () => {
    const org = JSON.parse((await admin(['org', 'create', '--name', 'Cli Co', '--plan', 'starter'])).stdout);
    assert.match(org.id, /^org_/);
    assert.equal(org.plan, 'starter');
    const created = JSON.parse((await admin(['key', 'create', '--org', org.id, '--scope', 'read-write', '--quota', '5000'])).stdout);
    assert.ok(isWellFormedKey(created.key));
    assert.equal(created.monthly_quota, 5000);
    const stored = await gateway.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    assert.equal(stored.hash, hashKey(created.key));
    assert.equal(JSON.stringify(stored).includes(created.key), false);
    const listed = JSON.parse((await admin(['key', 'list', '--org', org.id])).stdout);
    assert.equal(listed.data.length, 1);
    assert.equal(JSON.stringify(listed).includes(created.key), false, 'key list never shows the key');
    const orgs = JSON.parse((await admin(['org', 'list'])).stdout);
    assert.ok(orgs.data.some((candidate: { id: string }) => candidate.id === org.id));
  });

  test('errors are JSON on stderr with a non-zero exit', async () => {
    const failure = await admin(['org', 'create', '--name', 'X', '--plan', 'platinum']).then(
      () => assert.fail('should exit non-zero'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failure.code, 2);
    assert.equal(JSON.parse(failure.stderr.split('\n')[0] ?? '').error.code, 'invalid_request');
  });

  test('Lite keys are read-only: a read-write key for a Lite organization is refused', async () => {
    const org = (await gateway.admin({ kind: 'org.create', name: 'Lite Co', plan: 'lite' })) as { id: string };
    await assert.rejects(
      gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read-write', monthlyQuota: 100 }),
      (error: unknown) => error instanceof ApiError && error.code === 'plan_required',
    );
  });

  test('keys per organization: Lite 1, Starter 5, Pro unlimited; the extra key is key_limit_reached', async () => {
    for (const [plan, limit] of [
      ['lite', 1],
      ['starter', 5],
    ] as const) {
      const org = (await gateway.admin({ kind: 'org.create', name: plan, plan })) as { id: string };
      for (let i = 0; i < limit; i++) await gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read', monthlyQuota: 10 });
      await assert.rejects(
        gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read', monthlyQuota: 10 }),
        (error: unknown) => error instanceof ApiError && error.code === 'key_limit_reached',
      );
    }
    const pro = (await gateway.admin({ kind: 'org.create', name: 'pro', plan: 'pro' })) as { id: string };
    for (let i = 0; i < 12; i++) await gateway.admin({ kind: 'key.create', orgId: pro.id, scope: 'read-write', monthlyQuota: 10 });
  });

  test('concurrent key creations cannot exceed the limit', async () => {
    const org = (await gateway.admin({ kind: 'org.create', name: 'race', plan: 'starter' })) as { id: string };
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read', monthlyQuota: 10 })),
    );
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 5);
  });

  test('a move to Lite narrows every key to read; revoking frees a slot; rotation keeps the count', async () => {
    const org = (await gateway.admin({ kind: 'org.create', name: 'downgrade', plan: 'pro' })) as { id: string };
    const key = (await gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read-write', monthlyQuota: 10 })) as { id: string };
    const announced = new Promise<EventEnvelope>((resolve) => {
      void gateway.deps.bus.consume({ durable: 'test-plan-changes', types: ['org.plan_changed'] }, async (event) => {
        if (event.org_id === org.id) resolve(event);
      });
    });
    const result = (await gateway.admin({ kind: 'org.set-plan', orgId: org.id, plan: 'lite' })) as { narrowed_keys: number };
    assert.equal(result.narrowed_keys, 1);
    assert.deepEqual((await announced).data, { plan: 'lite' }, 'the plan change is published for the services');
    const listed = (await gateway.admin({ kind: 'key.list', orgId: org.id })) as { data: Array<{ scope: string }> };
    assert.deepEqual(
      listed.data.map((entry) => entry.scope),
      ['read'],
    );
    const rotated = (await gateway.admin({ kind: 'key.rotate', keyId: key.id, graceSeconds: 60 })) as { id: string };
    await assert.rejects(gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read', monthlyQuota: 10 }));
    await gateway.admin({ kind: 'key.revoke', keyId: rotated.id });
    await gateway.admin({ kind: 'key.create', orgId: org.id, scope: 'read', monthlyQuota: 10 });
  });
});
