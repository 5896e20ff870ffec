import { performance } from 'node:perf_hooks';
import { parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, testIdentity } from '@voice/kit/testing';
import { buildApp } from '../src/app.js';
import { startDeliveryWorker } from '../src/delivery/worker.js';
import { connectDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { startFanout } from '../src/nats/fanout.js';
import { startReceiver } from '../test/receiver.js';

const ctx = await createTestContext();
const deps = await connectDeps(
  parseEnv(envSchema, {
    ...ctx.env,
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_FANOUT_CONCURRENCY: process.argv[2] ?? '8',
    WEBHOOK_DELIVERY_CONCURRENCY: '100',
  }),
);
const app = await buildApp(deps);
const receiver = await startReceiver(() => 200);
const identity = testIdentity();
const url = '/api/v1/webhooks';
await app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload: { url: receiver.url } });
for (let i = 0; i < 2000; i += 100)
  await Promise.all(Array.from({ length: 100 }, () => deps.bus.publish('call.completed', identity.org_id, {})));
let t = performance.now();
await startFanout(deps);
for (;;) {
  const n = await deps.queue.count();
  if (n >= 2000) break;
  await new Promise((r) => setTimeout(r, 50));
}
console.log('fanout events/s', Math.round(2000 / ((performance.now() - t) / 1000)));
t = performance.now();
const worker = startDeliveryWorker(deps);
await receiver.waitFor((r) => r.length >= 2000, 600000);
console.log('worker deliveries/s', Math.round(2000 / ((performance.now() - t) / 1000)));
await worker.close();
await receiver.close();
await app.close();
await deps.close();
await ctx.cleanup();
