import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  callEventDataSchema,
  compareEventSchemas,
  type EventData,
  type EventEnvelope,
  type EventType,
  eventDataJsonSchema,
  eventDataSchemas,
} from '@voice/proto';
import { z } from 'zod';
import type { EventSchemas } from '../src/dead-letters.js';
import { createLogger } from '../src/logger.js';
import { Bus, newEvent } from '../src/nats.js';
import { testIdentity, testSigningSecret } from '../src/testing/identity.js';
import { eventually, type OwnServer, sampleEventData, startOwnNats } from '../src/testing/index.js';

/**
 * A rolling upgrade, proved: two versions of a publisher and of a consumer side by side on one stream, replicas
 * replaced one at a time while events flow, and no event lost or handled twice (ARCHITECTURE.md, "Upgrades
 * without loss"). Against a nats-server of this file's own. Version 1 is the platform as built; version 2
 * publishes `call.completed` with a field more (additive: the same type) and, in the second test, a
 * `call.completed.v2` of another shape (breaking: a new type, which version 1 dead-letters until it is upgraded
 * and the operator replays).
 */

const orgId = testIdentity().org_id;
const sentiments = ['positive', 'neutral', 'negative'] as const;

/** Version 2's `call.completed`: version 1's with an optional field more. */
const callCompletedV2 = callEventDataSchema.extend({ sentiment: z.enum(sentiments).optional() });
/** Version 2's new type: the same call with its duration in milliseconds, a change no version 1 reader could take. */
const callCompletedV2Type = 'call.completed.v2';
const callCompletedV2TypeSchema = callEventDataSchema.omit({ duration_seconds: true }).extend({ duration_ms: z.number().int().nullable() });

const v1Schemas: EventSchemas = eventDataSchemas;
const v2Schemas: EventSchemas = {
  ...eventDataSchemas,
  'call.completed': callCompletedV2,
  [callCompletedV2Type]: callCompletedV2TypeSchema,
};

interface Handled {
  id: string;
  type: string;
  by: string;
  version: 1 | 2;
  /** What version 2 reads of the new field; version 1 does not know it. */
  sentiment?: string | undefined;
  /** Whether the event carried the field at all, as the handler got it. */
  carriedSentiment: boolean;
}

describe('rolling upgrade', () => {
  let nats: OwnServer;
  const open = new Set<Bus>();

  before(async () => {
    nats = await startOwnNats();
  });
  after(async () => {
    await Promise.allSettled([...open].map((bus) => bus.drain()));
    await nats.close();
  });

  function deployment(namespace: string) {
    const connect = async (name: string, eventSchemas: EventSchemas) => {
      const bus = await Bus.connect({
        url: nats.url,
        name,
        namespace,
        logger: createLogger(name, 'silent'),
        secret: testSigningSecret,
        eventSchemas,
      });
      open.add(bus);
      return bus;
    };
    const handled = new Map<string, Handled[]>();
    /** A replica of a consuming deployable at a version: a process of its own, with its durable consumer. */
    const replica = async (name: string, version: 1 | 2, durable: string, types: readonly string[]) => {
      const bus = await connect(name, version === 1 ? v1Schemas : v2Schemas);
      const record = handled.get(durable) ?? [];
      handled.set(durable, record);
      await bus.consume({ durable, types: types as readonly EventType[], ackWaitMs: 2_000 }, async (event: EventEnvelope) => {
        const data = event.data as Record<string, unknown>;
        // Version 2 reads the new field (checked by its schema); version 1's handler knows only its own fields.
        const sentiment = version === 2 && typeof data.sentiment === 'string' ? data.sentiment : undefined;
        record.push({ id: event.id, type: event.type, by: name, version, sentiment, carriedSentiment: 'sentiment' in data });
      });
      return {
        bus,
        /** Stops as on SIGTERM: no more events taken, those in hand finished and acknowledged. */
        async stop() {
          await bus.drain();
          open.delete(bus);
        },
      };
    };
    return { connect, replica, handled };
  }

  /** Waits until the durable consumer has nothing pending or unacknowledged (events in a stopped replica's hands come back after the ack wait). */
  async function settled(bus: Bus, durable: string): Promise<void> {
    const manager = await jetstreamManager(bus.connection);
    const name = bus.subject(durable).replace('.', '_');
    await eventually(`${durable} settled`, async () => {
      const info = await manager.consumers.info(bus.streamName, name);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
    });
  }

  const v1Call = (): EventData<'call.completed'> => sampleEventData('call.completed');
  const v2Call = (): EventData<'call.completed'> =>
    ({ ...sampleEventData('call.completed'), sentiment: sentiments[Math.floor(Math.random() * 3)] }) as EventData<'call.completed'>;

  test('an additive change: old and new publishers and consumers share the stream, replicas replaced one by one, every event handled once', async () => {
    // The contract test's rule, on this change: a new optional property, so the same type.
    const changes = compareEventSchemas(eventDataJsonSchema(callEventDataSchema), eventDataJsonSchema(callCompletedV2));
    assert.deepEqual(changes, { breaking: [], added: ['data.sentiment'] });

    const namespace = `t${randomBytes(5).toString('hex')}`;
    const { connect, replica, handled } = deployment(namespace);
    const oldPublisher = await connect('publisher-v1', v1Schemas);
    const newPublisher = await connect('publisher-v2', v2Schemas);
    const published: EventEnvelope[] = [];
    const unwanted: EventEnvelope[] = [];
    const publishOld = async (count: number) => {
      for (let i = 0; i < count; i++) published.push(await oldPublisher.publish('call.completed', orgId, v1Call()));
      // A type the fan-out does not take (it filters in the client): acknowledged unread by either version.
      unwanted.push(await oldPublisher.publish('dnc.added', orgId, sampleEventData('dnc.added')));
    };
    const publishNew = async (count: number) => {
      for (let i = 0; i < count; i++) published.push(await newPublisher.publish('call.completed', orgId, v2Call()));
    };
    const fanoutTypes = ['call.completed', 'lead.created'];
    const batch = (from: number) => new Set(published.slice(from).map((event) => event.id));

    // Before: version 1 everywhere. `fanout` has two replicas on one durable; `outcomes`, another
    // deployable's consumer of the type, stays on version 1 throughout.
    let a = await replica('fanout-a-v1', 1, 'fanout', fanoutTypes);
    let b = await replica('fanout-b-v1', 1, 'fanout', fanoutTypes);
    await replica('outcomes-v1', 1, 'outcomes', ['call.completed']);
    await publishOld(20);

    // Publishers upgrade first (or later: either order works); replica a goes down. Version 1 alone reads new events.
    await a.stop();
    let from = published.length;
    await Promise.all([publishOld(15), publishNew(15)]);
    await settled(b.bus, 'fanout');
    const oldReadsNew = (handled.get('fanout') ?? []).filter((entry) => batch(from).has(entry.id));
    assert.ok(
      oldReadsNew.every((entry) => entry.version === 1),
      'the old replica alone handled this batch',
    );
    assert.ok(
      oldReadsNew.filter((entry) => entry.carriedSentiment).length === 15,
      'version 1 handled every event carrying the field it does not know',
    );

    // Side by side: a on version 2 beside b on version 1, both publishers publishing, and b stopped meanwhile.
    a = await replica('fanout-a-v2', 2, 'fanout', fanoutTypes);
    const flowing = Promise.all([publishOld(30), publishNew(30)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await b.stop();
    await flowing;
    await settled(a.bus, 'fanout');

    // Version 2 alone reads old events (the old publisher's replicas are not all upgraded yet).
    from = published.length;
    await publishOld(15);
    await settled(a.bus, 'fanout');
    const newReadsOld = (handled.get('fanout') ?? []).filter((entry) => batch(from).has(entry.id));
    assert.equal(newReadsOld.length, 15);
    assert.ok(newReadsOld.every((entry) => entry.version === 2 && entry.sentiment === undefined && !entry.carriedSentiment));

    // After: version 2 everywhere that was upgraded.
    b = await replica('fanout-b-v2', 2, 'fanout', fanoutTypes);
    await publishNew(20);
    await settled(a.bus, 'fanout');
    await settled(a.bus, 'outcomes');

    // No event lost, none handled twice: each consumer handled exactly the events published, once.
    const ids = published.map((event) => event.id).sort();
    for (const durable of ['fanout', 'outcomes']) {
      const got = (handled.get(durable) ?? []).map((entry) => entry.id).sort();
      assert.equal(got.length, ids.length, `${durable}: ${got.length} handled of ${ids.length} published`);
      assert.deepEqual(got, ids, durable);
    }
    const fanout = handled.get('fanout') ?? [];
    assert.ok(
      fanout.every((entry) => entry.type === 'call.completed'),
      'the unwanted type was acknowledged unread',
    );
    assert.equal(unwanted.length, 4);
    // Version 2 read the field wherever version 2 published it and a version 2 replica handled it.
    const newIds = new Set(published.filter((event) => 'sentiment' in event.data).map((event) => event.id));
    assert.equal(newIds.size, 65);
    for (const entry of fanout) {
      if (entry.version === 2) assert.equal(entry.sentiment !== undefined, newIds.has(entry.id), entry.id);
      assert.equal(entry.carriedSentiment, newIds.has(entry.id), entry.id);
    }
    assert.ok(fanout.some((entry) => entry.version === 1) && fanout.some((entry) => entry.version === 2));
    // Nothing needed a dead letter.
    assert.deepEqual(await a.bus.deadLetters.list(), []);
  });

  test('a breaking change is a new type: old replicas dead-letter it, and after the upgrade a replay delivers each once', async () => {
    // The contract test's rule, on this change: a property removed and one added required, so a new type.
    const changes = compareEventSchemas(eventDataJsonSchema(callEventDataSchema), eventDataJsonSchema(callCompletedV2TypeSchema));
    assert.deepEqual(changes.breaking, ['data.duration_seconds: removed', 'data.duration_ms: new required property']);

    const namespace = `t${randomBytes(5).toString('hex')}`;
    const { connect, replica, handled } = deployment(namespace);
    const newPublisher = await connect('publisher-v2', v2Schemas);
    const published: EventEnvelope[] = [];
    const publishNewType = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const { duration_seconds, ...call } = sampleEventData('call.completed');
        const event = {
          ...newEvent('call.completed', orgId, sampleEventData('call.completed')),
          type: callCompletedV2Type,
          data: { ...call, duration_ms: (duration_seconds ?? 0) * 1000 },
        };
        await newPublisher.publishEnvelope(event as unknown as EventEnvelope);
        published.push(event as unknown as EventEnvelope);
      }
      // The old type goes on beside it until no consumer needs it.
      published.push(await newPublisher.publish('call.completed', orgId, v2Call()));
    };
    const v1Types = ['call.completed', 'lead.created'];
    const v2Types = [...v1Types, callCompletedV2Type];

    let a = await replica('fanout-a-v1', 1, 'fanout', v1Types);
    const b = await replica('fanout-b-v1', 1, 'fanout', v1Types);
    // A consumer of the old type only (a server-side filter on its subject) never sees the new one.
    await replica('outcomes-v1', 1, 'outcomes', ['call.completed']);

    // a is upgraded: while it is down, b (version 1) gets every event of the new type, and dead-letters it.
    await a.stop();
    await publishNewType(10);
    await settled(b.bus, 'fanout');
    const early = await b.bus.deadLetters.list({ consumer: 'fanout' });
    assert.equal(early.length, 10);
    assert.ok(early.every((letter) => letter.reason === 'unknown_type' && letter.type === callCompletedV2Type));

    // Side by side: each event of the new type reaches version 2 (handled) or version 1 (dead-lettered), as the replicas pull.
    a = await replica('fanout-a-v2', 2, 'fanout', v2Types);
    await publishNewType(20);
    await settled(a.bus, 'fanout');
    await b.stop();
    await replica('fanout-b-v2', 2, 'fanout', v2Types);

    // The upgrade done, the operator replays the consumer's dead letters (npm run -s admin -- dead-letters replay --all --consumer fanout).
    const replayed = await a.bus.deadLetters.replayAll({ consumer: 'fanout' });
    assert.ok(replayed.length >= 10);
    await eventually('every replayed event handled', async () => {
      await settled(a.bus, 'fanout');
      return (handled.get('fanout') ?? []).length === published.length;
    });
    await settled(a.bus, 'outcomes');

    const ids = published.map((event) => event.id).sort();
    const fanout = (handled.get('fanout') ?? []).map((entry) => entry.id).sort();
    assert.deepEqual(fanout, ids, 'fanout: every event, each once');
    assert.ok((handled.get('fanout') ?? []).filter((entry) => entry.type === callCompletedV2Type).every((entry) => entry.version === 2));
    const outcomes = (handled.get('outcomes') ?? []).map((entry) => entry.id).sort();
    assert.deepEqual(
      outcomes,
      published
        .filter((event) => event.type === 'call.completed')
        .map((event) => event.id)
        .sort(),
    );
    assert.deepEqual(await a.bus.deadLetters.list(), [], 'no dead letter left');
  });
});
