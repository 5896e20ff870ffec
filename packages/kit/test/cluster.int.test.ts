import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { defineRpc, type EventEnvelope } from '@voice/proto';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { ApiError } from '../src/errors.js';
import { idempotent } from '../src/idempotency.js';
import { createLogger } from '../src/logger.js';
import { Bus, newEvent } from '../src/nats.js';
import { FixedWindowLimiter } from '../src/rate-limit.js';
import { connectRedis } from '../src/redis.js';
import { testIdentity, testSigningSecret } from '../src/testing/identity.js';
import {
  eventually,
  hasProgram,
  type NatsCluster,
  type NatsClusterNode,
  type RedisCluster,
  sampleEventData,
  startNatsCluster,
  startRedisCluster,
  testServerUrls,
} from '../src/testing/index.js';

// A Redis Cluster and a NATS cluster of the test's own (the harness in src/testing/clusters.ts), on ports
// from TEST_OWN_PORTS: the kit's Redis clients, Lua scripts and idempotency records on three primaries with
// a replica each, and the event stream and request/reply on three JetStream servers, each losing a server.

const logger = createLogger('test', 'silent');
const missingRedis = !((await hasProgram('redis-server')) && (await hasProgram('redis-cli')))
  ? 'redis-server or redis-cli is not installed; the Redis Cluster tests need both'
  : false;
const missingNats = !(await hasProgram('nats-server')) ? 'nats-server is not installed; the NATS cluster tests need it' : false;

describe('on a Redis Cluster of three primaries, each with a replica', { skip: missingRedis }, () => {
  let cluster: RedisCluster;
  let redis: Redis;
  const prefix = `test:${randomBytes(4).toString('hex')}:`;

  before(async () => {
    cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
    // As a request path connects: REDIS_MODE=cluster from the environment, failing fast while a slot has no primary.
    redis = await connectRedis(cluster.env, { failFast: true });
  });
  after(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  test('keys of different hash tags spread over the primaries, and each is read back through the one client', async () => {
    const orgs = Array.from({ length: 24 }, (_, index) => `org_${index}`);
    await Promise.all(orgs.map((org) => redis.set(`${prefix}q:{${org}}:m`, org)));
    const holders = new Set<number>();
    for (const org of orgs) {
      assert.equal(await redis.get(`${prefix}q:{${org}}:m`), org);
      holders.add((await cluster.primaryFor(`${prefix}q:{${org}}:m`)).port);
    }
    assert.equal(holders.size, 3, 'every primary holds some of the keys');
  });

  test("the rate limiter's Lua script stays one atomic step: 40 concurrent takes against a limit of 7 allow exactly 7", async () => {
    const limiter = new FixedWindowLimiter(redis, { prefix, name: 'sign-in', limit: 7, windowSeconds: 60 });
    const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.take('203.0.113.7')));
    assert.equal(decisions.filter((decision) => decision.allowed).length, 7);
  });

  test('idempotency records: a retry replays the first response, another body conflicts, concurrent twins run once', async () => {
    let runs = 0;
    const options = (fingerprint: unknown) => ({
      redis,
      prefix,
      orgId: 'org_idem',
      operation: 'calls.create',
      key: 'key-1',
      fingerprint,
    });
    const work = async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: 201, body: { id: `call_${runs}` } };
    };
    const twins = await Promise.allSettled([idempotent(options({ to: '+1' }), work), idempotent(options({ to: '+1' }), work)]);
    assert.equal(runs, 1);
    assert.equal(twins.filter((result) => result.status === 'fulfilled').length, 1);
    const replay = await idempotent(options({ to: '+1' }), work);
    assert.deepEqual(replay, { status: 201, body: { id: 'call_1' }, replayed: true });
    await assert.rejects(idempotent(options({ to: '+2' }), work), (error: unknown) => {
      return error instanceof ApiError && error.code === 'idempotency_conflict';
    });
    assert.equal(runs, 1);
  });

  test('a killed primary: its replica is promoted, the key it held survives, and the client follows it', async () => {
    const key = `${prefix}idem:{org_failover}:op:k`;
    await redis.set(key, 'kept');
    const primary = await cluster.primaryFor(key);
    // Only what reached the replica survives the primary: wait for that copy, as WAIT does.
    const direct = new Redis(primary.url, { lazyConnect: true });
    await direct.connect();
    assert.equal(await direct.wait(1, 5_000), 1);
    direct.disconnect();

    await cluster.kill(primary);
    await cluster.waitUntilServing();
    const promoted = await cluster.primaryFor(key);
    assert.notEqual(promoted.port, primary.port);
    // The fail-fast client may refuse a command or two while it learns the new slot owner; then it serves.
    assert.equal(await eventually('the key through the promoted replica', () => redis.get(key)), 'kept');
    await eventually('a write through the promoted replica', async () => (await redis.set(key, 'written')) === 'OK');

    // The old primary comes back as a replica of the promoted one.
    await cluster.restart(primary);
    assert.ok(!(await cluster.primaries()).some((node) => node.port === primary.port));
    assert.equal(await redis.get(key), 'written');
  });
});

describe('JETSTREAM_REPLICAS on one server', () => {
  test('above 1, the events stream is refused with a message naming the variable', async () => {
    const bus = await Bus.connect({
      url: testServerUrls.nats,
      name: 'single',
      namespace: `t${randomBytes(5).toString('hex')}`,
      logger,
      secret: testSigningSecret,
      streamReplicas: 3,
    });
    try {
      await assert.rejects(
        bus.ensureStream(),
        /NATS refused the events stream with 3 replicas \(JETSTREAM_REPLICAS\): replicas > 1 not supported/,
      );
    } finally {
      await bus.drain();
    }
  });
});

const echo = defineRpc('svc.cluster.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string() }), 'read');

describe('on a NATS cluster of three JetStream servers', { skip: missingNats }, () => {
  let cluster: NatsCluster;
  const buses: Bus[] = [];
  const namespace = `t${randomBytes(5).toString('hex')}`;
  const connectBus = async (name: string, streamReplicas = 3) => {
    const bus = await Bus.connect({
      url: cluster.url,
      name,
      namespace,
      logger,
      secret: testSigningSecret,
      streamReplicas,
      requestTimeoutMs: 1_000,
    });
    buses.push(bus);
    return bus;
  };

  before(async () => {
    cluster = await startNatsCluster(3);
  });
  after(async () => {
    await Promise.allSettled(buses.map((bus) => bus.drain()));
    await cluster?.stop();
  });

  test('the events stream is made with JETSTREAM_REPLICAS copies; a stream made with one is raised to three', async () => {
    const single = await connectBus('first-start', 1);
    await single.ensureStream();
    const manager = await jetstreamManager(single.connection);
    assert.equal((await manager.streams.info(single.streamName)).config.num_replicas, 1);
    const replicated = await connectBus('next-start', Number(cluster.env.JETSTREAM_REPLICAS));
    await replicated.ensureStream();
    const info = await manager.streams.info(replicated.streamName);
    assert.equal(info.config.num_replicas, 3);
    await eventually('two replicas beside the leader', async () => {
      const replicas = (await manager.streams.info(replicated.streamName)).cluster?.replicas ?? [];
      return replicas.length === 2 && replicas.every((replica) => replica.current);
    });
  });

  test("events published across the loss of the stream's leader, then of the consumer's server, are all consumed; none is stored twice", async () => {
    const publisher = await connectBus('publisher');
    const consumer = await connectBus('consumer');
    const received = new Map<string, number>();
    const consuming = await consumer.consume({ durable: 'cluster-test', types: ['lead.created'] }, async (event: EventEnvelope) => {
      received.set(event.id, (received.get(event.id) ?? 0) + 1);
    });
    const manager = await jetstreamManager(publisher.connection);
    const serverNamed = (name: string | undefined) => {
      const node = cluster.nodes.find((candidate) => candidate.name === name || `127.0.0.1:${candidate.port}` === name);
      assert.ok(node, `${name} is one of the cluster's servers`);
      return node;
    };
    const total = 120;
    const published: string[] = [];
    let down: NatsClusterNode | undefined;
    for (let index = 0; index < total; index++) {
      if (index === 40) {
        down = serverNamed((await manager.streams.info(publisher.streamName)).cluster?.leader);
        await cluster.kill(down);
      }
      if (index === 80) {
        // One server down at a time: two of three keep the quorum.
        await cluster.restart(down as NatsClusterNode);
        down = serverNamed(consumer.connection.getServer());
        await cluster.kill(down);
      }
      const event = newEvent('lead.created', 'org_cluster', sampleEventData('lead.created'));
      // As the outbox relay does: the same event again until JetStream acknowledges it; its id de-duplicates.
      await eventually(`event ${index} acknowledged`, () => publisher.publishEnvelope(event, { timeoutMs: 1_000 }).then(() => true));
      published.push(event.id);
    }
    await eventually('every event consumed', () => published.every((id) => received.has(id)), { timeoutMs: 30_000 });
    const stored = (await manager.streams.info(publisher.streamName)).state.messages;
    assert.equal(stored, total, 'JetStream stored each event once');
    assert.deepEqual(new Set(received.keys()), new Set(published));
    await consuming.close();
    await cluster.restart(down as NatsClusterNode);
  });

  test('request/reply recovers after the server both sides are connected to is lost', async () => {
    const server = await connectBus('server', 3);
    const client = await connectBus('client', 3);
    server.serve(echo, async (input) => ({ text: input.text.toUpperCase() }));
    await server.flush();
    assert.deepEqual(await client.call(echo, testIdentity(), { text: 'before' }), { text: 'BEFORE' });
    const connectedTo = new Set([server.connection.getServer(), client.connection.getServer()]);
    const lost = cluster.nodes.filter((node) => connectedTo.has(`127.0.0.1:${node.port}`));
    assert.ok(lost.length > 0, `the buses are connected to ${[...connectedTo].join(', ')}`);
    // Killing one of them: the other two keep the cluster's quorum, and the buses reconnect to one of them.
    await cluster.kill(lost[0] as (typeof lost)[number]);
    const answer = await eventually('an answer after the loss', () => client.call(echo, testIdentity(), { text: 'after' }), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    assert.deepEqual(answer, { text: 'AFTER' });
    await cluster.restart(lost[0] as (typeof lost)[number]);
  });
});
