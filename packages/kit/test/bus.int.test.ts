import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { defineRpc, type EventEnvelope } from '@voice/proto';
import { z } from 'zod';
import { ApiError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { Bus } from '../src/nats.js';
import { testIdentity } from '../src/testing/identity.js';
import { testServerUrls } from '../src/testing/index.js';

const echo = defineRpc('svc.test.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string(), org_id: z.string() }));
const logger = createLogger('test', 'silent');

/** Two processes' worth of connections, in one namespace of their own. */
describe('NATS between services', () => {
  const namespace = `t${randomBytes(5).toString('hex')}`;
  let serviceA: Bus;
  let serviceB: Bus;

  before(async () => {
    serviceA = await Bus.connect({ url: testServerUrls.nats, name: 'a', namespace, logger, requestTimeoutMs: 1_000 });
    serviceB = await Bus.connect({ url: testServerUrls.nats, name: 'b', namespace, logger, requestTimeoutMs: 1_000 });
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

  test('a subject nobody serves is unavailable, not a hang', async () => {
    const nobody = defineRpc('svc.nobody.here', z.object({}), z.object({}));
    await assert.rejects(
      serviceB.call(nobody, testIdentity(), {}),
      (error: unknown) => error instanceof ApiError && error.code === 'unavailable',
    );
  });

  test('queue groups: replicas share requests, each request is answered once', async () => {
    const replica = await Bus.connect({ url: testServerUrls.nats, name: 'a2', namespace, logger });
    const shared = defineRpc('svc.test.shared', z.object({ n: z.number() }), z.object({ by: z.string() }));
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
    const consumerProcess = await Bus.connect({ url: testServerUrls.nats, name: 'consumer', namespace, logger });
    await consumerProcess.consume({ durable: 'test-durable', types: ['lead.created'] }, async () => {});
    await consumerProcess.drain();

    const published = await serviceA.publish('lead.created', orgId, { lead_id: 'lead_1' });
    await serviceA.publish('call.completed', orgId, { call_id: 'call_1' });

    // It comes back: the event waits for it; the filter kept the other type out.
    const restarted = await Bus.connect({ url: testServerUrls.nats, name: 'consumer', namespace, logger });
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
});
