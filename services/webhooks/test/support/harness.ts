import { type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, type Receiver, startReceiver, type TestContext, testIdentity } from '@voice/kit/testing';
import type { Identity, WebhookEndpointWithSecret } from '@voice/proto';
import { buildApp } from '../../src/app.js';
import { connectDeps, type WebhooksDeps } from '../../src/deps.js';
import { envSchema } from '../../src/env.js';

/** The webhooks service with its delivery workers running, and one endpoint of one organization at a local receiver. */
export interface DeliveryStack {
  ctx: TestContext;
  deps: WebhooksDeps;
  app: HttpApp;
  target: Receiver;
  identity: Identity;
  endpoint: WebhookEndpointWithSecret;
  close(): Promise<void>;
}

export async function startDeliveryStack(env: Record<string, string> = {}): Promise<DeliveryStack> {
  const ctx = await createTestContext();
  const deps = await connectDeps(
    parseEnv(envSchema, { ...ctx.env, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,100', ...env }),
  );
  const app = await buildApp(deps);
  const target = await startReceiver(() => 200);
  const identity = testIdentity();
  const url = '/api/v1/webhooks';
  const created = await app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload: { url: target.url } });
  return {
    ctx,
    deps,
    app,
    target,
    identity,
    endpoint: created.json() as WebhookEndpointWithSecret,
    async close() {
      await target.close();
      await app.close();
      await deps.close();
      await ctx.cleanup();
    },
  };
}
