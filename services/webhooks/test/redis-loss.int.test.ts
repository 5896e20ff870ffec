import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, type OwnServer, startOwnRedis, type TestContext, testIdentity } from '@voice/kit/testing';
import type { WebhookEndpointWithSecret } from '@voice/proto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { buildApp, startDeliveries } from '../src/app.js';
import { maintenanceQueueName } from '../src/delivery/maintenance.js';
import { enqueueDeliveries } from '../src/delivery/queue.js';
import { connectDeps, type WebhooksDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { createTestDelivery } from '../src/store/deliveries.js';
import { eventually, type Receiver, startReceiver } from './receiver.js';

// A Redis of this file's own, restarted without its data: the shared one is never flushed.
let redis: OwnServer;
let ctx: TestContext;
let deps: WebhooksDeps;
let app: HttpApp;
let background: { close(): Promise<void> };
let target: Receiver;
const identity = testIdentity();
let endpoint: WebhookEndpointWithSecret;

before(async () => {
  redis = await startOwnRedis();
  ctx = await createTestContext();
  deps = await connectDeps(
    parseEnv(envSchema, {
      ...ctx.env,
      REDIS_URL: redis.url,
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: '50,100',
      WEBHOOK_MAINTENANCE_INTERVAL_MS: '200',
    }),
  );
  app = await buildApp(deps);
  background = await startDeliveries(deps);
  target = await startReceiver(() => 200);
  const url = '/api/v1/webhooks';
  const created = await app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload: { url: target.url } });
  endpoint = created.json() as WebhookEndpointWithSecret;
});

after(async () => {
  await target?.close();
  await app?.close();
  await background?.close();
  await deps?.close();
  await ctx?.cleanup();
  await redis?.close();
});

test('after Redis restarts without its data, the maintenance scheduler comes back and delivers a pending delivery whose job was lost', async () => {
  const maintenance = new Queue(maintenanceQueueName, {
    connection: { host: '127.0.0.1', port: redis.port },
    prefix: `${ctx.redisPrefix}bull`,
  });
  try {
    assert.ok(await maintenance.getJobScheduler('webhook-maintenance'), 'the scheduler exists after start');
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    await client.set(`${ctx.redisPrefix}canary`, '1');
    await redis.restart();
    assert.equal(await client.get(`${ctx.redisPrefix}canary`), null, 'the restart lost every key');
    // Stored in Postgres before the loss; its job went with Redis.
    const orphan = await createTestDelivery(deps.prisma, identity.org_id, endpoint.id);
    await target.waitFor((requests) => requests.some((request) => request.headers['webhook-id'] === orphan.eventId));
    const delivered = await eventually(async () => {
      const row = await deps.prisma.delivery.findFirst({ where: { orgId: identity.org_id, id: orphan.id, status: 'succeeded' } });
      return row ?? undefined;
    });
    assert.equal(delivered.attemptCount, 1);
    client.disconnect();
    const scheduler = await maintenance.getJobScheduler('webhook-maintenance');
    assert.equal(scheduler?.every, 200, 'the scheduler was created again with its interval');
  } finally {
    await maintenance.close();
  }
});

test('finished delivery jobs are kept an hour, failed ones by count', async () => {
  const pending = await createTestDelivery(deps.prisma, identity.org_id, endpoint.id);
  await enqueueDeliveries(deps.queue, identity.org_id, [pending.id], 3);
  const job = await deps.queue.getJob(pending.id);
  assert.deepEqual(job?.opts.removeOnComplete, { age: 3_600 });
  assert.deepEqual(job?.opts.removeOnFail, { count: 5_000 });
});
