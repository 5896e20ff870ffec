import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type Harness, startLeads, testIdentity } from './harness.js';

let h: Harness;
before(async () => {
  h = await startLeads();
});
after(async () => {
  await h?.close();
});

it('a create whose event cannot be published still succeeds once: a retry with its key returns the same lead', async () => {
  const org = testIdentity();
  const publish = h.deps.bus.publish.bind(h.deps.bus);
  h.deps.bus.publish = async () => {
    throw new Error('simulated JetStream outage');
  };
  let first: { statusCode: number; json(): { id: string } };
  try {
    first = await h.request(org, 'POST', '/api/v1/leads', { name: 'Ada', phone: '+14155550111' }, { 'idempotency-key': 'lead-once' });
  } finally {
    h.deps.bus.publish = publish;
  }
  assert.equal(first.statusCode, 201, 'the lead is committed; the request does not fail after the fact');
  const retry = await h.request(org, 'POST', '/api/v1/leads', { name: 'Ada', phone: '+14155550111' }, { 'idempotency-key': 'lead-once' });
  assert.equal(retry.statusCode, 201);
  assert.equal(retry.json().id, first.json().id);
  assert.equal(await h.deps.prisma.lead.count({ where: { orgId: org.org_id } }), 1);
});
