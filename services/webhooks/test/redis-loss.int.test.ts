import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, type OwnServer, type Receiver, startOwnRedis, type TestContext } from '@voice/kit/testing';
import type { Identity, WebhookEndpointWithSecret } from '@voice/proto';
import { Redis } from 'ioredis';
import { enqueueDeliveries } from '../src/delivery/queue.js';
import type { WebhooksDeps } from '../src/deps.js';
import { createTestDelivery } from '../src/store/deliveries.js';
import { type DeliveryStack, startDeliveryStack } from './support/harness.js';

// A Redis of this file's own, restarted without its data: the shared one is never flushed.
let redis: OwnServer;
let stack: DeliveryStack;
let ctx: TestContext;
let deps: WebhooksDeps;
let target: Receiver;
let identity: Identity;
let endpoint: WebhookEndpointWithSecret;

before(async () => {
  redis = await startOwnRedis();
  stack = await startDeliveryStack({ REDIS_URL: redis.url, WEBHOOK_MAINTENANCE_INTERVAL_MS: '200' });
  ({ ctx, deps, target, identity, endpoint } = stack);
});

after(async () => {
  await stack?.close();
  await redis?.close();
});

test('after Redis restarts without its data, maintenance (scheduled outside Redis) delivers a pending delivery whose job was lost', async () => {
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  await client.set(`${ctx.redisPrefix}canary`, '1');
  await redis.restart();
  assert.equal(await client.get(`${ctx.redisPrefix}canary`), null, 'the restart lost every key');
  // Stored in Postgres before the loss; its job went with Redis.
  const orphan = await createTestDelivery(deps.prisma, identity.org_id, endpoint.id);
  await target.waitFor((requests) => requests.some((request) => request.headers['webhook-id'] === orphan.eventId));
  const delivered = await eventually('the requeued delivery to succeed', async () => {
    const row = await deps.prisma.delivery.findFirst({ where: { orgId: identity.org_id, id: orphan.id, status: 'succeeded' } });
    return row ?? undefined;
  });
  assert.equal(delivered.attemptCount, 1);
  client.disconnect();
});

test('finished delivery jobs are kept an hour, failed ones by count', async () => {
  const pending = await createTestDelivery(deps.prisma, identity.org_id, endpoint.id);
  await enqueueDeliveries(deps.queue, identity.org_id, [pending.id], 3);
  const job = await deps.queue.getJob(pending.id);
  assert.deepEqual(job?.opts.removeOnComplete, { age: 3_600 });
  assert.deepEqual(job?.opts.removeOnFail, { count: 5_000 });
});
