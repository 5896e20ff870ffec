import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { defineRpc } from '@voice/proto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { HttpApp } from '../src/http.js';
import { createLogger } from '../src/logger.js';
import { Bus } from '../src/nats.js';
import { serveOperation } from '../src/operations.js';
import { connectRedis } from '../src/redis.js';
import { testIdentity, testSigningSecret } from '../src/testing/identity.js';
import { testServerUrls } from '../src/testing/index.js';

const logger = createLogger('test', 'silent');

/** An operation whose answer holds a secret shown once, like a webhook endpoint's creation. */
const createThing = defineRpc(
  'svc.test.things.create',
  z.object({ name: z.string(), idempotency_key: z.string().optional() }),
  z.object({ id: z.string(), name: z.string(), secret: z.string() }),
  'read-write',
  { idempotent: 'things.create' },
);

describe('serveOperation', () => {
  const namespace = `t${randomBytes(5).toString('hex')}`;
  const prefix = `test:${randomBytes(5).toString('hex')}:`;
  // No operation here has a REST route, so the app is never asked for one.
  const app = {} as HttpApp;
  let bus: Bus;
  let redis: Redis;

  before(async () => {
    redis = await connectRedis(testServerUrls.redis);
    bus = await Bus.connect({
      url: testServerUrls.nats,
      name: 'things',
      namespace,
      logger,
      secret: testSigningSecret,
      requestTimeoutMs: 2_000,
    });
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await bus.deleteStream();
    await bus.drain();
  });

  test('remember: an idempotent operation keeps what it says under its key, and a replay answers from that', async () => {
    const things = new Map<string, { id: string; name: string; secret: string }>();
    let runs = 0;
    serveOperation(
      { app, bus, idempotency: { redis, env: { REDIS_PREFIX: prefix } } },
      createThing,
      async ({ name }) => {
        const thing = { id: `thing_${++runs}`, name, secret: `secret_${randomBytes(8).toString('hex')}` };
        things.set(thing.id, thing);
        return thing;
      },
      {
        keep: (thing) => ({ thing_id: thing.id }),
        replay: async (kept: { thing_id: string }) => things.get(kept.thing_id) as { id: string; name: string; secret: string },
      },
    );
    const identity = testIdentity();
    const first = await bus.call(createThing, identity, { name: 'a', idempotency_key: 'k1' });
    const again = await bus.call(createThing, identity, { name: 'a', idempotency_key: 'k1' });
    assert.deepEqual(again, first, 'the replay answers as the first did');
    assert.equal(runs, 1);
    const stored = await redis.get(`${prefix}idem:{${identity.org_id}}:things.create:k1`);
    assert.ok(stored?.includes(first.id), 'the key keeps the id');
    assert.equal(stored?.includes(first.secret), false, 'and not the secret');
    await assert.rejects(bus.call(createThing, identity, { name: 'b', idempotency_key: 'k1' }), { code: 'idempotency_conflict' });
    await bus.call(createThing, identity, { name: 'a' });
    assert.equal(runs, 2, 'without a key it runs each time');
  });

  test('an idempotent operation served without Redis is refused at once', () => {
    assert.throws(
      () => serveOperation({ app, bus }, createThing, async ({ name }) => ({ id: 'thing_1', name, secret: 's' })),
      /idempotent/,
    );
  });
});
