import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer, connect as netConnect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { defineRpc, type EventEnvelope } from '@voice/proto';
import { z } from 'zod';
import { ApiError } from '../src/errors.js';
import { natsSignatureHeader, signNatsRequest } from '../src/identity.js';
import { createLogger } from '../src/logger.js';
import { Bus, type EventHandler } from '../src/nats.js';
import { PendingEvents } from '../src/outbox.js';
import { testIdentity, testSigningSecret } from '../src/testing/identity.js';
import { sampleEventData, startOwnNats, testServerUrls } from '../src/testing/index.js';

const echo = defineRpc('svc.test.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string(), org_id: z.string() }), 'read');
const logger = createLogger('test', 'silent');

/** Two processes' worth of connections, in one namespace of their own. */
describe('NATS between services', () => {
  const namespace = `t${randomBytes(5).toString('hex')}`;
  let serviceA: Bus;
  let serviceB: Bus;

  before(async () => {
    serviceA = await Bus.connect({
      url: testServerUrls.nats,
      name: 'a',
      namespace,
      logger,
      secret: testSigningSecret,
      requestTimeoutMs: 1_000,
    });
    serviceB = await Bus.connect({
      url: testServerUrls.nats,
      name: 'b',
      namespace,
      logger,
      secret: testSigningSecret,
      requestTimeoutMs: 1_000,
    });
  });
  after(async () => {
    await serviceA.deleteStream();
    await serviceA.drain();
    await serviceB.drain();
  });

  test('request/reply: typed input and output, identity carried, errors rebuilt as ApiError', async () => {
    serviceA.serve(echo, async (input, identity) => {
      if (input.text === 'missing') throw new ApiError('not_found', 'No such thing.', { param: 'text' });
      return { text: input.text.toUpperCase(), org_id: identity.org_id };
    });
    await serviceA.flush();
    const identity = testIdentity();
    assert.deepEqual(await serviceB.call(echo, identity, { text: 'hi' }), { text: 'HI', org_id: identity.org_id });
    await assert.rejects(
      serviceB.call(echo, identity, { text: 'missing' }),
      (error: unknown) => error instanceof ApiError && error.code === 'not_found' && error.param === 'text',
    );
    await assert.rejects(
      serviceB.call(echo, identity, { text: '' } as { text: string }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_request' && error.param === 'text',
    );
  });

  test("an operation's declared scope is enforced when it is served: a read key is refused a write, before its handler", async () => {
    const write = defineRpc('svc.test.write', z.object({}), z.object({ ran: z.number() }), 'read-write');
    let ran = 0;
    serviceA.serve(write, async () => ({ ran: ++ran }));
    await serviceA.flush();
    await assert.rejects(
      serviceB.call(write, testIdentity({ scope: 'read' }), {}),
      (error: unknown) => error instanceof ApiError && error.code === 'forbidden_scope' && error.status === 403,
    );
    assert.equal(ran, 0);
    assert.deepEqual(await serviceB.call(write, testIdentity({ scope: 'read-write' }), {}), { ran: 1 });
  });

  test('a request not signed with the secret is refused as unauthenticated, and the handler never runs', async () => {
    const guarded = defineRpc('svc.test.guarded', z.object({ org: z.string() }), z.object({ ran: z.number() }), 'read');
    const other = defineRpc('svc.test.other', z.object({ org: z.string() }), z.object({ ran: z.number() }), 'read');
    let ran = 0;
    for (const definition of [guarded, other]) serviceA.serve(definition, async () => ({ ran: ++ran }));
    await serviceA.flush();
    // A NATS client of its own, as anyone who can reach the server would have.
    const raw = await connect({ servers: testServerUrls.nats });
    const subject = `${namespace}.${guarded.subject}`;
    const payload = (orgId: string) =>
      new TextEncoder().encode(JSON.stringify({ identity: testIdentity({ org_id: orgId }), input: { org: orgId } }));
    const send = async (to: string, data: Uint8Array, signature?: string) => {
      const signed = headers();
      if (signature !== undefined) signed.set(natsSignatureHeader, signature);
      const reply = await raw.request(to, data, { timeout: 2_000, headers: signed });
      return JSON.parse(new TextDecoder().decode(reply.data)) as { ok: boolean; error?: { code: string; message: string } };
    };
    const victim = payload('org_victim000000000000000');
    const mine = payload('org_attacker0000000000000');
    const minute = 60_000;
    const refusals: Array<[string, Promise<{ ok: boolean; error?: { code: string; message: string } }>]> = [
      ['signature missing', send(subject, victim)],
      ['signature malformed', send(subject, victim, 't=1,v1=nothex')],
      ['does not match (another secret)', send(subject, victim, signNatsRequest(subject, victim, 'someone-elses-secret-0123456789abcdef'))],
      ['signature expired', send(subject, victim, signNatsRequest(subject, victim, testSigningSecret, new Date(Date.now() - 10 * minute)))],
      ['does not match (lifted onto another payload)', send(subject, victim, signNatsRequest(subject, mine, testSigningSecret))],
      [
        'does not match (lifted onto another subject)',
        send(`${namespace}.${other.subject}`, victim, signNatsRequest(subject, victim, testSigningSecret)),
      ],
    ];
    for (const [why, reply] of refusals) {
      const answer = await reply;
      assert.equal(answer.ok, false, why);
      assert.equal(answer.error?.code, 'unauthenticated', why);
      assert.ok(answer.error?.message.includes(why.replace(/ \(.*\)$/, '')), `${why}: ${answer.error?.message}`);
    }
    // A process configured with another secret gets nothing either.
    const stranger = await Bus.connect({ url: testServerUrls.nats, name: 'stranger', namespace, logger, secret: 'x'.repeat(40) });
    await assert.rejects(
      stranger.call(guarded, testIdentity(), { org: 'x' }),
      (error: unknown) => error instanceof ApiError && error.code === 'unauthenticated',
    );
    await stranger.drain();
    await raw.close();
    assert.equal(ran, 0, 'no refused request reached the handler');
    // The bus's own signed path still works.
    assert.deepEqual(await serviceB.call(guarded, testIdentity(), { org: 'x' }), { ran: 1 });
  });

  test('a subject nobody serves is unavailable, not a hang', async () => {
    const nobody = defineRpc('svc.nobody.here', z.object({}), z.object({}), 'read');
    await assert.rejects(
      serviceB.call(nobody, testIdentity(), {}),
      (error: unknown) => error instanceof ApiError && error.code === 'unavailable',
    );
  });

  test('a request made before its operation is served waits for the responder within its deadline', async () => {
    // What a request sees while a responder reconnects, or while its subscription crosses a cluster: the
    // server answers "no responders" at once. The call is sent again until the responder is there.
    const late = defineRpc('svc.test.late', z.object({ text: z.string() }), z.object({ text: z.string() }), 'read');
    const calling = serviceB.call(late, testIdentity(), { text: 'waited' }, { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    serviceA.serve(late, async (input) => ({ text: input.text.toUpperCase() }));
    assert.deepEqual(await calling, { text: 'WAITED' });
  });

  test('a call that does not await a responder is unavailable at once when nobody serves its subject', async () => {
    // The console's count of waiting approvals asks so: an mcp service that is not deployed costs a page nothing.
    const optional = defineRpc('svc.test.optional', z.object({}), z.object({ served: z.boolean() }), 'read');
    const settled = serviceB.call(optional, testIdentity(), {}, { timeoutMs: 120_000, awaitResponder: false }).then(
      () => 'answered',
      (error: unknown) => (error instanceof ApiError ? error.code : 'other error'),
    );
    // The subject is served once the call settles, or after 20 s: a call that waited for a responder would be
    // answered then (and fail this test) instead of hanging to its deadline.
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    serviceA.serve(optional, async () => ({ served: true }));
    assert.equal(await settled, 'unavailable');
    // Calls that await a responder (the default) are answered by it.
    assert.deepEqual(await serviceB.call(optional, testIdentity(), {}, { timeoutMs: 10_000 }), { served: true });
  });

  test('queue groups: replicas share requests, each request is answered once', async () => {
    const replica = await Bus.connect({ url: testServerUrls.nats, name: 'a2', namespace, logger, secret: testSigningSecret });
    const shared = defineRpc('svc.test.shared', z.object({ n: z.number() }), z.object({ by: z.string() }), 'read');
    serviceA.serve(shared, async () => ({ by: 'a' }));
    replica.serve(shared, async () => ({ by: 'a2' }));
    await Promise.all([serviceA.flush(), replica.flush()]);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => serviceB.call(shared, testIdentity(), { n })));
    assert.equal(answers.length, 40);
    assert.ok(new Set(answers.map((answer) => answer.by)).size === 2, 'both replicas answered some');
    await replica.drain();
  });

  test('JetStream: an event published while its consumer is down is delivered when it comes back, once acked', async () => {
    const orgId = testIdentity().org_id;
    // The consumer registers, then goes away (its process stops).
    const consumerProcess = await Bus.connect({ url: testServerUrls.nats, name: 'consumer', namespace, logger, secret: testSigningSecret });
    await consumerProcess.consume({ durable: 'test-durable', types: ['lead.created'] }, async () => {});
    await consumerProcess.drain();

    const published = await serviceA.publish('lead.created', orgId, sampleEventData('lead.created'));
    await serviceA.publish('call.completed', orgId, sampleEventData('call.completed'));

    // It comes back: the event waits for it; the filter kept the other type out.
    const restarted = await Bus.connect({ url: testServerUrls.nats, name: 'consumer', namespace, logger, secret: testSigningSecret });
    const received: EventEnvelope[] = [];
    let failOnce = true;
    await new Promise<void>((resolve) => {
      void restarted.consume({ durable: 'test-durable', types: ['lead.created'] }, async (event) => {
        // The first attempt fails: the event is not acked and comes back.
        if (failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
        received.push(event);
        resolve();
      });
    });
    assert.equal(received.length, 1);
    assert.deepEqual(received[0], published);
    await restarted.drain();
  });

  test('JetStream: data that does not match its type is refused by the compiler, and a consumer dead-letters it, logged', async (t) => {
    const orgId = testIdentity().org_id;
    const consumerLogger = createLogger('consumer', 'silent');
    const logged = t.mock.method(consumerLogger, 'error');
    const consumerProcess = await Bus.connect({
      url: testServerUrls.nats,
      name: 'typed-consumer',
      namespace,
      logger: consumerLogger,
      secret: testSigningSecret,
    });
    t.after(() => consumerProcess.drain());
    const received: EventEnvelope<'call.completed'>[] = [];
    // The stream also holds earlier tests' events (the consumer starts from the first): this test's org only.
    await consumerProcess.consume({ durable: 'test-typed', types: ['call.completed'] }, async (event) => {
      if (event.org_id === orgId) received.push(event);
    });

    // What an outdated publisher or a cast could still send; the consumer must not see it, nor get it again.
    // @ts-expect-error call.completed carries a call, not a lead
    const mismatched = await serviceA.publish('call.completed', orgId, sampleEventData('lead.created'));
    const matching = await serviceA.publish('call.completed', orgId, sampleEventData('call.completed'));

    const manager = await jetstreamManager(consumerProcess.connection);
    const durable = `${namespace}_test-typed`;
    for (const deadline = Date.now() + 10_000; ; ) {
      const info = await manager.consumers.info(consumerProcess.streamName, durable);
      if (received.length === 1 && info.num_ack_pending === 0 && info.num_pending === 0) {
        assert.equal(info.num_redelivered, 0, 'the mismatched event is not redelivered');
        break;
      }
      assert.ok(
        Date.now() < deadline,
        `both events handled: ${received.length} ${info.num_ack_pending} ${info.num_pending} ${logged.mock.callCount()}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The handler got the matching event with its data as sent, key order included (a webhook body is these bytes).
    assert.equal(JSON.stringify(received[0]), JSON.stringify(matching));
    assert.equal(received[0]?.data.outcome, sampleEventData('call.completed').outcome);
    const [entry, ...more] = logged.mock.calls;
    assert.ok(entry);
    assert.equal(more.length, 0);
    const { detail, dead_letter, ...fields } = entry.arguments[0] as { detail: string; dead_letter: number };
    assert.deepEqual(fields, { event_id: mismatched.id, type: 'call.completed', durable: 'test-typed', reason: 'data_mismatch' });
    assert.match(detail, /"path":/, 'the log says what did not match');
    // Kept, not dropped: the dead letter is the event as it was (packages/kit/test/dead-letters.int.test.ts).
    const letter = await consumerProcess.deadLetters.get(dead_letter);
    assert.deepEqual([letter.reason, letter.consumer, letter.event], ['data_mismatch', 'test-typed', mismatched]);
  });

  test('types: a pending event, the publisher and the consumer all take the data of their type only', () => {
    const events = new PendingEvents();
    // @ts-expect-error dnc.added carries a do-not-call entry, not a call
    events.add('dnc.added', 'org_test', sampleEventData('call.completed'));
    // @ts-expect-error an event type that does not exist
    events.add('call.answered', 'org_test', sampleEventData('call.completed'));
    const added = events.add('lead.updated', 'org_test', sampleEventData('lead.updated', { changed: ['status'] }));
    assert.deepEqual(added.data.changed, ['status']);
    const handler: EventHandler<'sms.sent' | 'dnc.added'> = async (event) => {
      if (event.type === 'dnc.added') assert.ok(event.data.dnc_id);
      // @ts-expect-error only a dnc event has a dnc_id
      else assert.ok(event.data.dnc_id);
    };
    assert.equal(typeof handler, 'function');
  });
});

describe('Bus.connect', () => {
  test('a first handshake that times out does not fail the start: the next attempt connects', async (t) => {
    // A relay that leaves the first connection unanswered (no INFO: the handshake times out, as on a
    // loaded machine) and forwards the next ones to the real NATS.
    const target = new URL(testServerUrls.nats);
    let attempts = 0;
    const held: Socket[] = [];
    const relay = createServer((client) => {
      attempts++;
      held.push(client);
      client.on('error', () => {});
      if (attempts === 1) return;
      const upstream = netConnect(Number(target.port || 4222), target.hostname);
      upstream.on('error', () => {});
      held.push(upstream);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const { port } = relay.address() as AddressInfo;
    const closeRelay = () => {
      for (const socket of held) socket.destroy();
      relay.close();
    };
    const bus = await Bus.connect({
      url: `nats://127.0.0.1:${port}`,
      name: 'kit-test-slow-start',
      namespace: `t${randomBytes(4).toString('hex')}`,
      logger,
      secret: testSigningSecret,
    }).catch((error: unknown) => {
      closeRelay();
      throw error;
    });
    t.after(async () => {
      await bus.drain();
      closeRelay();
    });
    await bus.ping();
    assert.ok(attempts >= 2, `connected on attempt ${attempts}`);
  });
});

describe('requests across a NATS restart', () => {
  test('a request made while the connection is down is sent once it is back, within its deadline', async (t) => {
    const nats = await startOwnNats();
    const namespace = `t${randomBytes(5).toString('hex')}`;
    const connectBus = (name: string) => Bus.connect({ url: nats.url, name, namespace, logger, secret: testSigningSecret });
    const server = await connectBus('restart-server');
    const client = await connectBus('restart-client');
    t.after(async () => {
      await Promise.allSettled([server.drain(), client.drain()]);
      await nats.close();
    });
    server.serve(echo, async (input, identity) => ({ text: input.text.toUpperCase(), org_id: identity.org_id }));
    await server.flush();
    const disconnected = (async () => {
      for await (const status of client.connection.status()) if (status.type === 'disconnect') return;
    })();
    await nats.kill();
    await disconnected;
    // Made while nothing answers: the client drops what is published before its reconnect, so the call must
    // wait for the connection (and then for the responder's) rather than send into the void.
    const identity = testIdentity();
    const calling = client.call(echo, identity, { text: 'across' }, { timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await nats.start();
    assert.deepEqual(await calling, { text: 'ACROSS', org_id: identity.org_id });
  });
});
