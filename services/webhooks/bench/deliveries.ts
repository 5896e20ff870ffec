// Deliveries per second to a local receiver, end to end: publish on JetStream, fan-out, BullMQ, signing,
// the POST, the bookkeeping. Runs the service in-process against a fresh test database and namespace.
// Usage: npx tsx --conditions=source services/webhooks/bench/deliveries.ts [events=2000] [endpoints=1] [concurrency=100]
import { performance } from 'node:perf_hooks';
import { parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, sampleEventData, startReceiver, testIdentity } from '@voice/kit/testing';
import { buildApp } from '../src/app.js';
import { connectDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';

const [eventCount = 2_000, endpointCount = 1, concurrency = 100] = process.argv.slice(2).map(Number);
const total = eventCount * endpointCount;

const ctx = await createTestContext();
const deps = await connectDeps(
  parseEnv(envSchema, {
    ...ctx.env,
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_DELIVERY_CONCURRENCY: String(concurrency),
  }),
);
const app = await buildApp(deps);
const receiver = await startReceiver(() => 200);
try {
  const identity = testIdentity({ plan: 'pro' });
  for (let index = 0; index < endpointCount; index++) {
    const url = '/api/v1/webhooks';
    const response = await app.inject({
      method: 'POST',
      url,
      headers: gatewayHeaders(identity, 'POST', url),
      payload: { url: receiver.url },
    });
    if (response.statusCode !== 201) throw new Error(`endpoint not created: ${response.body}`);
  }

  const started = performance.now();
  for (let offset = 0; offset < eventCount; offset += 100) {
    const batch = Math.min(100, eventCount - offset);
    await Promise.all(
      Array.from({ length: batch }, (_, index) =>
        deps.bus.publish(
          'call.completed',
          identity.org_id,
          sampleEventData('call.completed', { call_id: `call_benchmark${offset + index}` }),
        ),
      ),
    );
  }
  const publishedMs = performance.now() - started;
  await receiver.waitFor((requests) => requests.length >= total, 600_000);
  const elapsedSeconds = (performance.now() - started) / 1000;

  console.log(`events published:      ${eventCount} in ${(publishedMs / 1000).toFixed(2)} s`);
  console.log(`endpoints:             ${endpointCount} (worker concurrency ${concurrency})`);
  console.log(`deliveries received:   ${receiver.requests.length} in ${elapsedSeconds.toFixed(2)} s`);
  console.log(`deliveries per second: ${Math.round(total / elapsedSeconds)}`);
} finally {
  await receiver.close();
  await app.close();
  await deps.close();
  await ctx.cleanup();
}
