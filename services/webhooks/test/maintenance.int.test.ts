import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HttpApp } from '@voice/kit';
import { eventually, gatewayHeaders, type Receiver, sampleEventData } from '@voice/kit/testing';
import type { Identity, WebhookDelivery, WebhookEndpointWithSecret } from '@voice/proto';
import { runMaintenance } from '../src/delivery/maintenance.js';
import type { WebhooksDeps } from '../src/deps.js';
import { createTestDelivery } from '../src/store/deliveries.js';
import { type DeliveryStack, startDeliveryStack } from './support/harness.js';

let stack: DeliveryStack;
let deps: WebhooksDeps;
let app: HttpApp;
let target: Receiver;
let identity: Identity;
let endpoint: WebhookEndpointWithSecret;

before(async () => {
  stack = await startDeliveryStack();
  ({ deps, app, target, identity, endpoint } = stack);
});

after(() => stack?.close());

async function getDelivery(id: string) {
  const url = `/api/v1/webhooks/${endpoint.id}/deliveries/${id}`;
  const response = await app.inject({ method: 'GET', url, headers: gatewayHeaders(identity, 'GET', url) });
  return { status: response.statusCode, body: response.json() as WebhookDelivery };
}

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

test('a pending delivery whose job was lost is queued again and delivered', async () => {
  // Stored but never queued: what Redis losing its data leaves behind.
  const orphan = await createTestDelivery(deps.prisma, identity.org_id, endpoint.id);
  const first = await runMaintenance(deps, minutesFromNow(2));
  assert.equal(first.requeued, 1);
  await target.waitFor((requests) => requests.some((request) => request.headers['webhook-id'] === orphan.eventId));
  const delivered = await eventually('the requeued delivery to succeed', async () => {
    const { body } = await getDelivery(orphan.id);
    return body.status === 'succeeded' ? body : undefined;
  });
  assert.equal(delivered.attempt_count, 1);
  assert.equal((await runMaintenance(deps, minutesFromNow(2))).requeued, 0);
});

test('finished deliveries past the retention period are deleted, pending ones are kept', async () => {
  const event = await deps.bus.publish('call.completed', identity.org_id, sampleEventData('call.completed', { call_id: 'call_12345678' }));
  const finished = await eventually('the delivery to succeed', async () => {
    const row = await deps.prisma.delivery.findFirst({ where: { orgId: identity.org_id, eventId: event.id, status: 'succeeded' } });
    return row ?? undefined;
  });
  const pending = await createTestDelivery(deps.prisma, identity.org_id, endpoint.id);

  const result = await runMaintenance(deps, minutesFromNow(31 * 24 * 60));
  assert.ok(result.deleted.deliveries >= 2, JSON.stringify(result));
  assert.ok(result.deleted.events >= 2, JSON.stringify(result));
  assert.equal((await getDelivery(finished.id)).status, 404);
  assert.equal((await getDelivery(pending.id)).status, 200);
});
