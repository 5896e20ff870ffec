import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { eventually } from '@voice/kit/testing';
import { collectEvents, type Harness, startLeads, testIdentity } from './support/harness.js';

let h: Harness;
before(async () => {
  h = await startLeads();
});
after(async () => {
  await h?.close();
});

it('a create whose event cannot be published yet succeeds once, and its event goes out when JetStream is back', async () => {
  const org = testIdentity();
  const published = collectEvents(h);
  const publishEnvelope = h.deps.bus.publishEnvelope.bind(h.deps.bus);
  h.deps.bus.publishEnvelope = async () => {
    throw new Error('simulated JetStream outage');
  };
  let first: { statusCode: number; json(): { id: string } };
  try {
    first = await h.request(org, 'POST', '/api/v1/leads', { name: 'Ada', phone: '+14155550111' }, { 'idempotency-key': 'lead-once' });
    assert.equal(first.statusCode, 201, 'the lead is committed; the request does not wait for or fail on the event');
    const retry = await h.request(org, 'POST', '/api/v1/leads', { name: 'Ada', phone: '+14155550111' }, { 'idempotency-key': 'lead-once' });
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.json().id, first.json().id);
    assert.equal(await h.deps.prisma.lead.count({ where: { orgId: org.org_id } }), 1);
    assert.equal(await h.deps.prisma.outboxEvent.count(), 1, 'its lead.created waits in the outbox');
  } finally {
    h.deps.bus.publishEnvelope = publishEnvelope;
  }
  h.deps.outbox.nudge();
  await eventually('the outbox to drain', async () => ((await h.deps.prisma.outboxEvent.count()) === 0 ? true : undefined));
  await h.deps.bus.flush();
  const created = published.flatMap((event) => (event.type === 'lead.created' && event.org_id === org.org_id ? [event.data.id] : []));
  assert.deepEqual(created, [first.json().id]);
});
