import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, eventually, gatewayHeaders, type TestContext, testIdentity } from '@voice/kit/testing';
import type { WebhookEndpoint } from '@voice/proto';
import { buildApp } from '../src/app.js';
import { connectDeps, type WebhooksDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';

let ctx: TestContext;
let deps: WebhooksDeps;
let app: HttpApp;

before(async () => {
  ctx = await createTestContext();
  deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' }));
  app = await buildApp(deps);
});

after(async () => {
  await app?.close();
  await deps?.close();
  await ctx?.cleanup();
});

test("a move to Lite disables the organization's endpoints (reason plan); a move back re-enables only those", async () => {
  const identity = testIdentity({ plan: 'starter' });
  const other = testIdentity({ plan: 'pro' });
  const create = async (who: typeof identity) => {
    const url = '/api/v1/webhooks';
    const response = await app.inject({
      method: 'POST',
      url,
      headers: gatewayHeaders(who, 'POST', url),
      payload: { url: 'http://127.0.0.1:9/hook', event_types: ['*'] },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as WebhookEndpoint;
  };
  const kept = await create(identity);
  const manual = await create(identity);
  const untouched = await create(other);
  await deps.prisma.endpoint.update({ where: { id: manual.id }, data: { status: 'disabled', disabledReason: 'manual' } });

  // What the gateway's `org set-plan` publishes.
  await deps.bus.publish('org.plan_changed', identity.org_id, { plan: 'lite' });
  const state = async (id: string) => deps.prisma.endpoint.findUniqueOrThrow({ where: { id } });
  await eventually('the endpoint to be disabled', async () => ((await state(kept.id)).status === 'disabled' ? true : undefined), {
    timeoutMs: 10_000,
  });
  assert.equal((await state(kept.id)).disabledReason, 'plan');
  assert.equal((await state(untouched.id)).status, 'enabled', "another organization's endpoints are not touched");

  await deps.bus.publish('org.plan_changed', identity.org_id, { plan: 'pro' });
  await eventually('the endpoint to be enabled again', async () => ((await state(kept.id)).status === 'enabled' ? true : undefined), {
    timeoutMs: 10_000,
  });
  assert.equal((await state(manual.id)).status, 'disabled', 'an endpoint disabled by hand stays disabled');
  assert.equal((await state(manual.id)).disabledReason, 'manual');
});
