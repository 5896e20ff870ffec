import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { type EventData, type EventEnvelope, eventDataSchemas, eventSubject } from '@voice/proto';
import { type DeadLetter, type DeadLetterSummary, deadLetterHeaders, replayForHeader } from '../src/dead-letters.js';
import { eventId } from '../src/ids.js';
import { createLogger } from '../src/logger.js';
import { Bus, type BusOptions, newEvent } from '../src/nats.js';
import { testIdentity, testSigningSecret } from '../src/testing/identity.js';
import { eventually, type OwnServer, runAdmin, sampleEventData, startOwnNats } from '../src/testing/index.js';

const encoder = new TextEncoder();

/** `npm run -s admin -- dead-letters …` against this file's NATS and namespace. */
const admin = (args: string[], env: Record<string, string>) => runAdmin(['dead-letters', ...args], env);

/**
 * Dead letters against a nats-server of this file's own (it creates and deletes streams): events a consumer
 * cannot read are kept with their reason, never dropped, and the operator lists, shows and replays them.
 */
describe('dead letters', () => {
  let nats: OwnServer;
  const buses: Bus[] = [];
  const orgId = testIdentity().org_id;

  before(async () => {
    nats = await startOwnNats();
  });
  after(async () => {
    await Promise.allSettled(buses.map((bus) => bus.drain()));
    await nats.close();
  });

  /** A process's bus in `namespace`; `logger` to watch what it logs. */
  async function connectBus(namespace: string, options: Partial<BusOptions> = {}): Promise<Bus> {
    const bus = await Bus.connect({
      url: nats.url,
      name: 'dead-letter-test',
      namespace,
      logger: createLogger('test', 'silent'),
      secret: testSigningSecret,
      ...options,
    });
    buses.push(bus);
    return bus;
  }
  const newNamespace = () => `t${randomBytes(5).toString('hex')}`;

  /** Publishes bytes on an event subject as a broken or outdated publisher could. */
  async function publishRaw(bus: Bus, type: string, body: unknown): Promise<number> {
    await bus.ensureStream();
    const bytes = body instanceof Uint8Array ? body : encoder.encode(typeof body === 'string' ? body : JSON.stringify(body));
    const ack = await jetstream(bus.connection).publish(bus.subject(`evt.${type}`), bytes);
    return ack.seq;
  }

  async function consumerSettled(bus: Bus, durable: string): Promise<void> {
    const manager = await jetstreamManager(bus.connection);
    // The bus names its consumer as it names subjects: in its namespace.
    const name = bus.subject(durable).replace('.', '_');
    await eventually(`${durable} has no event pending`, async () => {
      const info = await manager.consumers.info(bus.streamName, name);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
    });
  }

  test('an event a consumer cannot read is dead-lettered with its reason, in order: stored, then terminated; unknown fields are read', async (t) => {
    const namespace = newNamespace();
    const logger = createLogger('consumer', 'silent');
    const logged = t.mock.method(logger, 'error');
    const publisher = await connectBus(namespace);
    const consumer = await connectBus(namespace, { logger });
    const received: EventEnvelope[] = [];
    await consumer.consume({ durable: 'reader' }, async (event) => {
      received.push(event);
    });

    const good = await publisher.publish('call.completed', orgId, sampleEventData('call.completed'));
    // A newer publisher's event: a field this version does not know, at the top and inside a nested object.
    const newer = newEvent('call.completed', orgId, {
      ...sampleEventData('call.completed'),
      cost: { amount: 12, currency: 'USD', tax: 1 } as { amount: number; currency: 'USD' },
      transcript_url: 'https://example.com/t/1',
    } as EventData<'call.completed'>);
    await publisher.publishEnvelope(newer);
    // @ts-expect-error call.completed carries a call, not a lead
    const mismatched = await publisher.publish('call.completed', orgId, sampleEventData('lead.created'));
    const notJson = await publishRaw(publisher, 'call.completed', '{"id": "evt_cut off');
    const notAnEvent = await publishRaw(publisher, 'lead.created', { hello: 'world' });
    const unknownType = newEvent('call.completed', orgId, sampleEventData('call.completed'));
    const unknownSeq = await publishRaw(publisher, 'call.transcribed', { ...unknownType, type: 'call.transcribed' });

    await consumerSettled(consumer, 'reader');
    assert.deepEqual(
      received.map((event) => event.id),
      [good.id, newer.id],
      'the good event and the one with unknown fields were handled',
    );
    // The handler got the newer event as sent, its unknown fields included.
    assert.equal(JSON.stringify(received[1]), JSON.stringify(newer));

    const letters = await consumer.deadLetters.list();
    assert.deepEqual(
      letters.map(({ reason, consumer: durable, type, event_id }) => ({ reason, durable, type, event_id })),
      [
        { reason: 'data_mismatch', durable: 'reader', type: 'call.completed', event_id: mismatched.id },
        { reason: 'malformed', durable: 'reader', type: null, event_id: null },
        { reason: 'malformed', durable: 'reader', type: null, event_id: null },
        { reason: 'unknown_type', durable: 'reader', type: 'call.transcribed', event_id: unknownType.id },
      ],
    );
    const [mismatch, broken, notEnvelope, unknown] = letters as [
      DeadLetterSummary,
      DeadLetterSummary,
      DeadLetterSummary,
      DeadLetterSummary,
    ];
    // Where it came from: the subject, stream and sequence of the original, how often it was delivered, when.
    assert.equal(mismatch.subject, `${namespace}.evt.call.completed`);
    assert.equal(mismatch.stream, consumer.streamName);
    assert.equal(mismatch.deliveries, 1);
    assert.ok(Math.abs(Date.parse(mismatch.dead_at) - Date.now()) < 60_000);
    assert.match(mismatch.detail, /"path":"/, 'what did not match');
    assert.equal(broken.stream_seq, notJson);
    assert.match(broken.detail, /^not JSON/);
    assert.equal(notEnvelope.stream_seq, notAnEvent);
    assert.match(notEnvelope.detail, /^not an event envelope/);
    assert.equal(unknown.stream_seq, unknownSeq);
    assert.equal(unknown.subject, `${namespace}.evt.call.transcribed`);

    // The dead letter is the event's bytes as they were, on dead.<consumer>.<type>.
    const full: DeadLetter = await consumer.deadLetters.get(mismatch.seq);
    assert.deepEqual(full.event, mismatched);
    const brokenFull = await consumer.deadLetters.get(broken.seq);
    assert.equal(brokenFull.event, '{"id": "evt_cut off');
    const manager = await jetstreamManager(consumer.connection);
    const stored = await manager.streams.getMessage(consumer.deadLetters.streamName, { seq: unknown.seq });
    assert.equal(stored?.subject, `${namespace}.dead.reader.call.transcribed`);
    assert.equal(stored?.header.get(deadLetterHeaders.reason), 'unknown_type');

    // Nothing is redelivered: each was terminated once stored.
    const info = await manager.consumers.info(consumer.streamName, `${namespace}_reader`);
    assert.equal(info.num_redelivered, 0);
    // The log says each, with the reason and the dead letter's sequence, never the data.
    const entries = logged.mock.calls.map((call) => call.arguments[0] as Record<string, unknown>);
    assert.deepEqual(
      entries.map((entry) => [entry.reason, entry.dead_letter]),
      letters.map((letter) => [letter.reason, letter.seq]),
    );
    assert.ok(entries.every((entry) => !('data' in entry)));
  });

  test('a dead letter NATS does not take leaves the event where it was: it comes back, and is stored once NATS takes it', async () => {
    const namespace = newNamespace();
    const publisher = await connectBus(namespace);
    const consumer = await connectBus(namespace);
    // A dead-letter stream that refuses every message (full, discarding new ones), as a NATS out of space would.
    const manager = await jetstreamManager(consumer.connection);
    const config = {
      name: consumer.deadLetters.streamName,
      subjects: [`${namespace}.dead.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.New,
      max_msgs: 1,
    };
    await manager.streams.add(config);
    await jetstream(consumer.connection).publish(`${namespace}.dead.filler.x`, encoder.encode('filler'));
    await consumer.consume({ durable: 'stubborn', types: ['call.completed'] }, async () => {});
    // @ts-expect-error call.completed carries a call, not a lead
    const mismatched = await publisher.publish('call.completed', orgId, sampleEventData('lead.created'));

    const durable = `${namespace}_stubborn`;
    await eventually('the event is delivered again while its dead letter is refused', async () => {
      const info = await manager.consumers.info(consumer.streamName, durable);
      return info.num_redelivered > 0 || info.delivered.consumer_seq > 1 ? info : undefined;
    });
    assert.equal((await manager.streams.info(config.name)).state.messages, 1, 'nothing stored yet');
    await manager.streams.update(config.name, { ...config, max_msgs: -1 });

    const letter = await eventually('the event is dead-lettered once NATS takes it', async () => {
      const [, found] = await consumer.deadLetters.list();
      return found;
    });
    assert.equal(letter.event_id, mismatched.id);
    assert.ok((letter.deliveries ?? 0) >= 2);
    await consumerSettled(consumer, 'stubborn');
  });

  test('storing a dead letter twice (a crash between store and terminate) stores it once', async () => {
    const namespace = newNamespace();
    const bus = await connectBus(namespace);
    const input = {
      data: encoder.encode('{}'),
      subject: `${namespace}.evt.call.completed`,
      stream: bus.streamName,
      streamSequence: 7,
      consumer: 'twice',
      deliveries: 1,
      reason: 'malformed' as const,
      detail: 'not an event envelope',
    };
    const first = await bus.deadLetters.add(input);
    const second = await bus.deadLetters.add({ ...input, deliveries: 2 });
    assert.equal(second, first);
    assert.equal((await bus.deadLetters.list()).length, 1);
  });

  test('an event that fails on every delivery its consumer allows is dead-lettered, with the last error', async () => {
    const namespace = newNamespace();
    const publisher = await connectBus(namespace);
    const consumer = await connectBus(namespace);
    let attempts = 0;
    await consumer.consume({ durable: 'doomed', types: ['dnc.added'], maxDeliver: 3 }, async () => {
      attempts++;
      throw new Error(`the database said no (${attempts})`);
    });
    const event = await publisher.publish('dnc.added', orgId, sampleEventData('dnc.added'));
    const letter = await eventually('the event is dead-lettered after its third failure', async () => {
      const [found] = await consumer.deadLetters.list({ consumer: 'doomed' });
      return found;
    });
    assert.equal(attempts, 3);
    assert.equal(letter.reason, 'max_deliveries');
    assert.equal(letter.event_id, event.id);
    assert.equal(letter.deliveries, 3);
    assert.match(letter.detail, /the database said no \(3\)/);
    await consumerSettled(consumer, 'doomed');
  });

  test("an event whose last delivery is never acknowledged (a hung handler) is dead-lettered from JetStream's advisory", async () => {
    const namespace = newNamespace();
    const publisher = await connectBus(namespace);
    const consumer = await connectBus(namespace);
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    let attempts = 0;
    await consumer.consume({ durable: 'hung', types: ['sms.sent'], maxDeliver: 2, ackWaitMs: 1_000, concurrency: 4 }, async () => {
      attempts++;
      await hung;
    });
    const event = await publisher.publish('sms.sent', orgId, sampleEventData('sms.sent'));
    const letter = await eventually('the event is dead-lettered after its second delivery timed out', async () => {
      const [found] = await consumer.deadLetters.list({ consumer: 'hung' });
      return found;
    });
    release();
    assert.equal(attempts, 2);
    assert.equal(letter.reason, 'max_deliveries');
    assert.equal(letter.event_id, event.id);
    assert.equal(letter.type, 'sms.sent');
    assert.equal(letter.deliveries, 2);
  });

  test('the operator lists, shows and replays dead letters; a replay reaches only its consumer, once, and the dead letter goes', async () => {
    const namespace = newNamespace();
    const env = { NATS_URL: nats.url, NATS_NAMESPACE: namespace };
    const publisher = await connectBus(namespace);
    // Version 1 of a consumer of every type that does not know lead.created yet, beside another consumer that does.
    const { 'lead.created': _unknownToV1, ...v1Schemas } = eventDataSchemas;
    const v1 = await connectBus(namespace, { eventSchemas: v1Schemas });
    const handledBy = { upgraded: [] as string[], other: [] as string[] };
    await v1.consume({ durable: 'upgraded' }, async () => {});
    const other = await connectBus(namespace);
    await other.consume({ durable: 'other', types: ['lead.created'] }, async (event) => {
      handledBy.other.push(event.id);
    });

    const events = [];
    for (let i = 0; i < 3; i++) events.push(await publisher.publish('lead.created', orgId, sampleEventData('lead.created')));
    // @ts-expect-error a mismatch for the other consumer: dead-lettered there, and never replayed to `upgraded`
    const mismatch = await publisher.publish('lead.created', orgId, sampleEventData('call.completed'), { id: eventId() });
    await consumerSettled(v1, 'upgraded');
    await consumerSettled(other, 'other');
    assert.deepEqual(
      handledBy.other,
      events.map((event) => event.id),
    );

    // list, --consumer, --limit
    const listed = await admin(['list'], env);
    assert.equal(listed.status, 0, listed.stderr);
    const all = JSON.parse(listed.stdout) as DeadLetterSummary[];
    assert.equal(all.length, 5);
    const upgraded = JSON.parse((await admin(['list', '--consumer', 'upgraded'], env)).stdout) as DeadLetterSummary[];
    assert.deepEqual(
      upgraded.map((letter) => [letter.reason, letter.event_id]),
      [...events, mismatch].map((event) => ['unknown_type', event.id]),
    );
    const limited = JSON.parse((await admin(['list', '--consumer', 'upgraded', '--limit', '2'], env)).stdout) as DeadLetterSummary[];
    assert.deepEqual(
      limited.map((letter) => letter.seq),
      upgraded.slice(0, 2).map((letter) => letter.seq),
    );
    const [first, second, third] = upgraded as [DeadLetterSummary, DeadLetterSummary, DeadLetterSummary];

    // show: the event as it was, and where it came from.
    const shown = await admin(['show', String(first.seq)], env);
    assert.equal(shown.status, 0, shown.stderr);
    const letter = JSON.parse(shown.stdout) as DeadLetter;
    assert.deepEqual(letter.event, events[0]);
    assert.equal(letter.subject, `${namespace}.evt.lead.created`);
    assert.equal(letter.consumer, 'upgraded');

    // The consumer is upgraded (version 2 knows lead.created); then its dead letters are replayed.
    await v1.drain();
    const v2 = await connectBus(namespace);
    await v2.consume({ durable: 'upgraded' }, async (event) => {
      handledBy.upgraded.push(event.id);
    });

    const replayed = await admin(['replay', String(first.seq)], env);
    assert.equal(replayed.status, 0, replayed.stderr);
    assert.deepEqual(JSON.parse(replayed.stdout).replayed_as.stream, v2.streamName);
    await eventually('the replayed event is handled', () => handledBy.upgraded.length === 1);
    // Replaying it again: it is gone (not_found), and nothing is published twice.
    const again = await admin(['replay', String(first.seq)], env);
    assert.equal(again.status, 1);
    assert.equal(JSON.parse(again.stderr).error.code, 'not_found');

    // A replay interrupted after its publish (the dead letter not yet deleted) is published again under the
    // same id: JetStream drops the repeat.
    const manager = await jetstreamManager(v2.connection);
    const stored = await manager.streams.getMessage(v2.deadLetters.streamName, { seq: second.seq });
    assert.ok(stored);
    const interrupted = await v2.deadLetters.replay(second.seq);
    await manager.streams.deleteMessage(v2.deadLetters.streamName, second.seq).catch(() => false);
    const republished = await jetstream(v2.connection).publish(stored.header.get(deadLetterHeaders.subject), stored.data, {
      msgID: `${second.event_id}:replay:${v2.deadLetters.streamName}:${second.seq}`,
    });
    assert.equal(republished.duplicate, true);
    assert.equal(republished.seq, interrupted.replayed_as.seq);

    // replay --all --consumer: the rest of this consumer's, the other consumer's left alone.
    const rest = await admin(['replay', '--all', '--consumer', 'upgraded'], env);
    assert.equal(rest.status, 0, rest.stderr);
    assert.deepEqual(
      (JSON.parse(rest.stdout) as Array<{ seq: number }>).map((result) => result.seq),
      [third.seq, upgraded[3]?.seq],
    );
    await consumerSettled(v2, 'upgraded');
    await consumerSettled(other, 'other');
    // Every readable event handled by the upgraded consumer exactly once; the other consumer got no replay of
    // its events. The mismatched one is no more readable by version 2: it is a dead letter again, with that reason.
    assert.deepEqual(handledBy.upgraded.sort(), events.map((event) => event.id).sort());
    assert.deepEqual(
      handledBy.other,
      events.map((event) => event.id),
    );
    const left = (await v2.deadLetters.list()).map((found) => [found.consumer, found.reason, found.event_id]);
    assert.deepEqual(left, [
      ['other', 'data_mismatch', mismatch.id],
      ['upgraded', 'data_mismatch', mismatch.id],
    ]);
    // The replayed events carry the consumer they are for.
    const replay = await manager.streams.getMessage(v2.streamName, { seq: interrupted.replayed_as.seq });
    assert.equal(replay?.header.get(replayForHeader), 'upgraded');

    // Usage mistakes are exit 2; the other consumer's mismatch is deleted for good by the operator.
    assert.equal((await admin(['replay'], env)).status, 2);
    assert.equal((await admin(['list', '--limit', 'many'], env)).status, 2);
    for (const found of await v2.deadLetters.list()) {
      const deleted = await admin(['delete', String(found.seq)], env);
      assert.equal(deleted.status, 0, deleted.stderr);
    }
    assert.deepEqual(await v2.deadLetters.list(), []);
  });

  test('a replayed event for one consumer is acknowledged unread by every other', async () => {
    const namespace = newNamespace();
    const publisher = await connectBus(namespace);
    const consumer = await connectBus(namespace);
    const handled: string[] = [];
    await consumer.consume({ durable: 'bystander', types: ['call.completed'] }, async (event) => {
      handled.push(event.id);
    });
    const event = newEvent('call.completed', orgId, sampleEventData('call.completed'));
    await publisher.ensureStream();
    // The same event replayed for another consumer, then for this one.
    for (const consumerName of ['someone-else', 'bystander']) {
      const replay = headers();
      replay.set(replayForHeader, consumerName);
      await jetstream(publisher.connection).publish(
        publisher.subject(eventSubject('call.completed')),
        encoder.encode(JSON.stringify(event)),
        {
          headers: replay,
        },
      );
    }
    await consumerSettled(consumer, 'bystander');
    assert.deepEqual(handled, [event.id]);
  });
});
