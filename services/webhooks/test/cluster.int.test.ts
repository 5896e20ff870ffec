import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeBullmqConnections, newEvent } from '@voice/kit';
import {
  eventually,
  hasProgram,
  type NatsCluster,
  type RedisCluster,
  sampleEventData,
  startNatsCluster,
  startRedisCluster,
} from '@voice/kit/testing';
import { Redis } from 'ioredis';
import { type DeliveryStack, startDeliveryStack } from './support/harness.js';

// The webhooks service with REDIS_MODE=cluster on a Redis Cluster of three primaries with a replica each,
// and NATS_URL listing a three-server JetStream cluster (JETSTREAM_REPLICAS=3): an event goes through the
// fan-out consumer into a BullMQ delivery job and out to a receiver, before and after the queue's primary dies.

const missing = !((await hasProgram('redis-server')) && (await hasProgram('redis-cli')) && (await hasProgram('nats-server')))
  ? 'redis-server, redis-cli or nats-server is not installed; the cluster tests need all three'
  : false;

describe('webhook deliveries on a Redis Cluster and a NATS cluster', { skip: missing }, () => {
  let redis: RedisCluster;
  let nats: NatsCluster;
  let stack: DeliveryStack;
  /** A key in the slot of every BullMQ key of this test's prefix. */
  let queueSlotKey: string;

  before(async () => {
    [redis, nats] = await Promise.all([startRedisCluster({ primaries: 3, replicasPerPrimary: 1 }), startNatsCluster(3)]);
    stack = await startDeliveryStack({ ...redis.env, ...nats.env });
    queueSlotKey = `{${stack.ctx.redisPrefix}bull}`;
  });
  after(async () => {
    await stack?.close();
    await closeBullmqConnections();
    await Promise.allSettled([redis?.stop(), nats?.stop()]);
  });

  const deliver = async () => {
    const { deps, identity, target } = stack;
    const event = newEvent('lead.created', identity.org_id, sampleEventData('lead.created'));
    // As the outbox relay does: the same event until JetStream acknowledges it (its id de-duplicates).
    await eventually('the event published', () => deps.bus.publishEnvelope(event, { timeoutMs: 1_000 }).then(() => true));
    const [request] = await target.waitFor((requests) => requests.some((request) => request.headers['webhook-id'] === event.id), 30_000);
    assert.ok(request);
    return event;
  };

  test('an event becomes a job of the hash-tagged queue, all of whose keys sit on one primary, and reaches the receiver', async () => {
    await deliver();
    const holder = await redis.primaryFor(queueSlotKey);
    for (const primary of await redis.primaries()) {
      const direct = new Redis(primary.url);
      const keys = await direct.keys(`${queueSlotKey}*`);
      direct.disconnect();
      if (primary.port === holder.port) assert.ok(keys.length > 0, 'the queue keys are on the slot owner');
      else assert.deepEqual(keys, [], `primary ${primary.port} holds no queue key`);
    }
  });

  test("after the queue's primary is killed, its replica takes over and the next event is delivered", async () => {
    const holder = await redis.primaryFor(queueSlotKey);
    await redis.kill(holder);
    await redis.waitUntilServing();
    assert.notEqual((await redis.primaryFor(queueSlotKey)).port, holder.port);
    await deliver();
    await redis.restart(holder);
    await deliver();
  });
});
