import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { EventEnvelope } from '@voice/proto';
import pg from 'pg';
import { Registry } from 'prom-client';
import { createLogger } from '../src/logger.js';
import { observeOutbox } from '../src/metrics.js';
import { Bus } from '../src/nats.js';
import { commitWithEvents, OutboxRelay, type OutboxWriter } from '../src/outbox.js';
import { schemaPoolConfig } from '../src/prisma.js';
import {
  createTestDatabase,
  eventually,
  sampleEventData,
  startOwnNats,
  storedEventCount,
  testSigningSecret,
} from '../src/testing/index.js';

// Every service declares the same outbox table; the leads schema's serves these tests of the mechanism.
const schema = 'leads';
const logger = createLogger('test', 'silent');

describe('transactional outbox', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let nats: Awaited<ReturnType<typeof startOwnNats>>;
  let pool: pg.Pool;
  let bus: Bus;
  let reader: Bus;
  let namespace: string;

  before(async () => {
    database = await createTestDatabase();
    nats = await startOwnNats();
    pool = new pg.Pool(schemaPoolConfig(database.url, schema, { maxConnections: 4 }));
  });
  after(async () => {
    await bus?.drain().catch(() => {});
    await reader?.drain().catch(() => {});
    await pool?.end();
    await nats?.close();
    await database?.drop();
  });

  /** Each test in a namespace of its own, on an empty table. */
  async function fresh() {
    await bus?.drain().catch(() => {});
    await reader?.drain().catch(() => {});
    namespace = `t${randomBytes(5).toString('hex')}`;
    bus = await Bus.connect({ url: nats.url, name: 'writer', namespace, logger, secret: testSigningSecret });
    reader = await Bus.connect({ url: nats.url, name: 'reader', namespace, logger, secret: testSigningSecret });
    await pool.query('DELETE FROM outbox_events');
  }

  /** A change with `count` events spread over `aggregates` records, committed like a service does. */
  async function commitEvents(count: number, aggregates: number, relay?: OutboxRelay): Promise<EventEnvelope[]> {
    const written: EventEnvelope[] = [];
    for (let index = 0; index < count; index++) {
      const aggregateId = `lead_aggregate${index % aggregates}`;
      await commitWithEvents<OutboxWriter, void>(
        async (work) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await work({ $executeRawUnsafe: async (query, ...values) => (await client.query(query, values)).rowCount ?? 0 });
            await client.query('COMMIT');
          } catch (error) {
            await client.query('ROLLBACK');
            throw error;
          } finally {
            client.release();
          }
        },
        relay,
        async (_tx, events) => {
          const data = sampleEventData('lead.updated', { id: aggregateId, custom_fields: { n: index } });
          written.push(events.add('lead.updated', 'org_test', data, { aggregateId }));
        },
      );
    }
    return written;
  }

  const pending = async () => Number((await pool.query<{ count: string }>('SELECT count(*) FROM outbox_events')).rows[0]?.count);

  async function untilPublished(): Promise<void> {
    while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** What a durable consumer receives of the stream: each stored message once, repeats already dropped. */
  async function stored(): Promise<EventEnvelope[]> {
    const messages = await storedEventCount(reader);
    const events: EventEnvelope[] = [];
    await reader.consume({ durable: `check_${randomBytes(3).toString('hex')}` }, async (event) => {
      events.push(event);
    });
    while (events.length < messages) await new Promise((next) => setTimeout(next, 20));
    return events;
  }

  function assertOncePerId(events: EventEnvelope[], written: EventEnvelope[]) {
    const counts = new Map<string, number>();
    for (const event of events) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
    assert.deepEqual(
      [...counts.values()].filter((count) => count !== 1),
      [],
      'no event twice',
    );
    assert.deepEqual([...counts.keys()].sort(), written.map((event) => event.id).sort(), 'every written event, nothing else');
  }

  function assertAggregateOrder(events: EventEnvelope[]) {
    const last = new Map<string, number>();
    for (const event of events) {
      assert.ok(event.type === 'lead.updated');
      const lead = event.data.id;
      const n = Number(event.data.custom_fields.n);
      assert.ok((last.get(lead) ?? -1) < n, `events of ${lead} in the order they were written`);
      last.set(lead, n);
    }
  }

  test('writes commit while NATS is down; once it is back every event is delivered exactly once, in order per aggregate', async (t) => {
    await fresh();
    await bus.ensureStream();
    const relay = new OutboxRelay({ bus, logger, databaseUrl: database.url, schema, pollMs: 200, maxBackoffMs: 500 }).start();
    t.after(async () => {
      await relay.close();
    });
    // What Prometheus would read meanwhile: the rows waiting, the oldest one's age, the relay's failures.
    const registry = new Registry();
    observeOutbox(registry, relay, { $queryRawUnsafe: async (query: string) => (await pool.query(query)).rows as never });
    const gauge = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await registry.metrics())?.[1]);
    await nats.stop();
    const written = await commitEvents(60, 6, relay);
    assert.equal(await pending(), 60, 'every write committed with its events while nothing could be published');
    assert.equal(await gauge('outbox_pending_events'), 60);
    assert.ok((await gauge('outbox_oldest_pending_age_seconds')) > 0, 'the outbox lag grows');
    await eventually('the relay counts its failed rounds', async () => (await gauge('outbox_relay_failures_total')) >= 1);
    await nats.start();
    await untilPublished();
    const events = await stored();
    assertOncePerId(events, written);
    assertAggregateOrder(events);
    await eventually('no lag once published', async () => (await gauge('outbox_oldest_pending_age_seconds')) === 0);
    assert.equal(await gauge('outbox_events_published_total'), 60);
  });

  test('rows left by a process that died after its commit are published by another relay', async (t) => {
    await fresh();
    const written = await commitEvents(20, 4); // no relay: the writing process is gone before it publishes
    assert.equal(await pending(), 20);
    const survivor = new OutboxRelay({ bus, logger, databaseUrl: database.url, schema, pollMs: 200 }).start();
    t.after(async () => {
      await survivor.close();
    });
    await untilPublished();
    const events = await stored();
    assertOncePerId(events, written);
    assertAggregateOrder(events);
  });

  test('a relay that published but crashed before deleting: the repeat is dropped as a duplicate', async (t) => {
    await fresh();
    const written = await commitEvents(15, 3);
    // The crashed relay's publishes: stored in JetStream, rows still pending.
    for (const event of written) await bus.publishEnvelope(event);
    assert.equal(await pending(), 15);
    const relay = new OutboxRelay({ bus, logger, databaseUrl: database.url, schema, pollMs: 200 }).start();
    t.after(async () => {
      await relay.close();
    });
    await untilPublished();
    assert.equal(await storedEventCount(reader), 15, 'JetStream stored each event once');
    assertOncePerId(await stored(), written);
  });

  test('two relays on one table publish each row once, keeping each aggregate in order', async (t) => {
    await fresh();
    await bus.ensureStream();
    const written = await commitEvents(200, 10);
    // Every publish, duplicates included: a plain subscription sees what JetStream would drop.
    const published: EventEnvelope[] = [];
    reader.connection.subscribe(reader.subject('evt.>'), {
      callback: (error, message) => {
        if (!error) published.push(message.json<EventEnvelope>());
      },
    });
    await reader.flush();
    const other = await Bus.connect({ url: nats.url, name: 'replica', namespace, logger, secret: testSigningSecret });
    const relays = [
      new OutboxRelay({ bus, logger, databaseUrl: database.url, schema, batchSize: 7, pollMs: 100 }),
      new OutboxRelay({ bus: other, logger, databaseUrl: database.url, schema, batchSize: 7, pollMs: 100 }),
    ];
    t.after(async () => {
      await Promise.all(relays.map((relay) => relay.close()));
      await other.drain();
    });
    for (const relay of relays) relay.start();
    await untilPublished();
    await reader.flush();
    assertOncePerId(published, written);
    assertAggregateOrder(published);
  });
});
