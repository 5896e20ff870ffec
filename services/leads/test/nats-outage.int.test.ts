import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { eventually, type OwnServer, startOwnNats, storedEventCount } from '@voice/kit/testing';
import type { EventEnvelope } from '@voice/proto';
import { type Harness, startLeads, testIdentity } from './support/harness.js';

// A nats-server of this file's own, so the test can stop it.
let nats: OwnServer;
let h: Harness;
before(async () => {
  nats = await startOwnNats();
  h = await startLeads({ NATS_URL: nats.url });
});
after(async () => {
  await h?.close();
  await nats?.close();
});

it('leads are created while NATS is down, and after it returns each lead.created is delivered exactly once', async () => {
  const org = testIdentity();
  const received: EventEnvelope<'lead.created'>[] = [];
  await h.deps.bus.consume({ durable: 'outage-check', types: ['lead.created'] }, async (event) => {
    received.push(event);
  });
  await nats.stop();
  const ids: string[] = [];
  for (let index = 0; index < 25; index++) {
    const response = await h.request(org, 'POST', '/api/v1/leads', { name: `Lead ${index}` });
    assert.equal(response.statusCode, 201, 'a write does not wait for NATS');
    ids.push(response.json().id);
  }
  assert.equal(await h.deps.prisma.outboxEvent.count(), 25, 'all 25 events kept while NATS is away');
  await nats.start();
  await eventually('the outbox to drain', async () => ((await h.deps.prisma.outboxEvent.count()) === 0 ? true : undefined), {
    timeoutMs: 60_000,
  });
  await eventually('the consumer to see every event', async () => (received.length >= 25 ? true : undefined), { timeoutMs: 60_000 });
  assert.equal(await storedEventCount(h.deps.bus), 25, 'each event stored once');
  assert.deepEqual(received.map((event) => event.data.id).sort(), [...ids].sort(), 'each lead announced once');
});
