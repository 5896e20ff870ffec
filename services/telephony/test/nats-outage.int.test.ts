import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, type OwnServer, startOwnNats, testIdentity } from '@voice/kit/testing';
import type { EventEnvelope } from '@voice/proto';
import { type Harness, startHarness } from './support/harness.js';

// A nats-server of this file's own, so the test can stop it.
let nats: OwnServer;
let h: Harness;
before(async () => {
  nats = await startOwnNats();
  h = await startHarness({ NATS_URL: nats.url });
});
after(async () => {
  await h?.close();
  await nats?.close();
});

test('calls and do-not-call entries are written while NATS is down; their events are delivered once after it returns', async () => {
  const identity = testIdentity();
  const received: EventEnvelope<'call.queued' | 'dnc.added'>[] = [];
  await h.deps.bus.consume({ durable: 'outage-check', types: ['call.queued', 'dnc.added'] }, async (event) => {
    received.push(event);
  });
  await nats.stop();
  const callIds: string[] = [];
  for (let index = 0; index < 8; index++) {
    const response = await h.request(identity, 'POST', '/api/v1/phone/calls', { to: `+1415555${String(3100 + index)}` });
    assert.equal(response.statusCode, 201, 'queuing a call does not wait for NATS');
    callIds.push(response.json().id);
  }
  const dncIds: string[] = [];
  for (let index = 0; index < 4; index++) {
    const response = await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: `+1415555${String(3200 + index)}`, channel: 'all' });
    assert.equal(response.statusCode, 201, 'listing a number does not wait for NATS');
    dncIds.push(response.json().id);
  }
  assert.ok((await h.deps.prisma.outboxEvent.count()) >= 12, 'every event kept while NATS is away');
  await nats.start();
  const queuedCallIds = () => received.flatMap((event) => (event.type === 'call.queued' ? [event.data.call_id] : []));
  const listedDncIds = () => received.flatMap((event) => (event.type === 'dnc.added' ? [event.data.dnc_id] : []));
  await eventually(
    'the queued calls and listings to be announced',
    () => (queuedCallIds().length >= 8 && listedDncIds().length >= 4 ? true : undefined),
    { timeoutMs: 60_000 },
  );
  await eventually('the outbox to drain', async () => ((await h.deps.prisma.outboxEvent.count()) === 0 ? true : undefined), {
    timeoutMs: 60_000,
  });
  // The dialer records call.queued again (same id) when it claims each call; JetStream keeps one.
  assert.deepEqual(queuedCallIds().sort(), [...callIds].sort());
  assert.deepEqual(listedDncIds().sort(), [...dncIds].sort());
});
