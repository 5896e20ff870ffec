// Test mode (issue 32) in the webhooks service: a test twin's events reach the twin's endpoints only, and the
// trigger test helper sends any event type, with its example data, through the normal delivery path.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpApp } from '@voice/kit';
import { eventually, gatewayHeaders, type ReceivedRequest, type Receiver, startReceiver, testIdentity } from '@voice/kit/testing';
import {
  type EventEnvelope,
  eventDataSchemas,
  eventEnvelopeSchema,
  eventExample,
  type Identity,
  subscribableEventTypes,
  type TriggeredEvent,
  testTwinOf,
  triggeredEventSchema,
  type WebhookDelivery,
  type WebhookEndpointWithSecret,
  webhooksRpc,
} from '@voice/proto';
import { Webhook } from 'standardwebhooks';
import type { WebhooksDeps } from '../src/deps.js';
import { type DeliveryStack, startDeliveryStack } from './support/harness.js';
import { loadReadmeRecipe, type VerifyWebhook } from './support/recipe.js';

// The service with its fan-out and delivery workers, on its own database and namespace. The stack's own
// endpoint belongs to one more organization, which must receive none of this file's events.
let stack: DeliveryStack;
let deps: WebhooksDeps;
let app: HttpApp;
let verifyWebhook: VerifyWebhook;
const receivers: Receiver[] = [];

before(async () => {
  stack = await startDeliveryStack();
  ({ deps, app } = stack);
  verifyWebhook = await loadReadmeRecipe();
});

after(async () => {
  await Promise.allSettled(receivers.map((receiver) => receiver.close()));
  assert.equal(stack?.target.requests.length, 0, 'another organization’s endpoint received nothing');
  await stack?.close();
});

/** A live organization's identity and its test twin's, as a `vk_live_` and a `vk_test_` key of it would sign. */
function liveAndTwin(overrides: Partial<Identity> = {}): { live: Identity; twin: Identity } {
  const live = testIdentity(overrides);
  return { live, twin: { ...live, org_id: testTwinOf(live.org_id) } };
}

async function call<T = unknown>(identity: Identity, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
  const response = await app.inject({
    method,
    url,
    headers: gatewayHeaders(identity, method, url),
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: response.statusCode, body: response.json() as T };
}

async function receiver() {
  const started = await startReceiver(() => 200);
  receivers.push(started);
  return started;
}

async function endpointAt(identity: Identity, target: Receiver, eventTypes: string[] = ['*']) {
  const { status, body } = await call<WebhookEndpointWithSecret>(identity, 'POST', '/api/v1/webhooks', {
    url: target.url,
    event_types: eventTypes,
  });
  assert.equal(status, 201, JSON.stringify(body));
  return body;
}

const trigger = (identity: Identity, payload: object) =>
  call<TriggeredEvent & { error: { code: string; param?: string } }>(identity, 'POST', '/api/v1/test_helpers/webhooks/trigger', payload);

/**
 * The envelope a receiver got, after checking its signature twice: with the `standardwebhooks` package (what
 * a receiver would install) and with the README's recipe (what the README tells them to write).
 */
function verified(endpoint: WebhookEndpointWithSecret, request: ReceivedRequest): EventEnvelope {
  const headers = request.headers as Record<string, string>;
  const payload = new Webhook(endpoint.secret).verify(request.body, headers);
  assert.equal(verifyWebhook(endpoint.secret, headers, request.body), true);
  assert.throws(() => new Webhook(endpoint.secret).verify(`${request.body} `, headers), 'a changed body does not verify');
  return eventEnvelopeSchema.parse(payload) as EventEnvelope;
}

/** Every delivery stored for an event, whichever endpoint it is for: the fan-out's whole decision. */
const deliveriesOf = (eventId: string) => deps.prisma.delivery.findMany({ where: { eventId }, orderBy: { endpointId: 'asc' } });

describe('test events reach the test twin’s endpoints only', () => {
  test('a live organization and its twin, each with a `*` endpoint: each receiver gets its own mode’s events', async () => {
    const { live, twin } = liveAndTwin();
    const [liveTarget, twinTarget] = [await receiver(), await receiver()];
    const liveEndpoint = await endpointAt(live, liveTarget);
    const twinEndpoint = await endpointAt(twin, twinTarget);

    // The twin's endpoint is the twin's: the live key does not see it, and the other way round.
    assert.equal((await call(live, 'GET', `/api/v1/webhooks/${twinEndpoint.id}`)).status, 404);
    assert.equal((await call(twin, 'GET', `/api/v1/webhooks/${liveEndpoint.id}`)).status, 404);

    const liveEvent = await deps.bus.publish('lead.created', live.org_id, eventExample('lead.created'));
    const testEvent = await deps.bus.publish('lead.created', twin.org_id, eventExample('lead.created'));
    assert.equal(liveEvent.livemode, true);
    assert.equal(testEvent.livemode, false);

    await liveTarget.waitFor((requests) => requests.length >= 1);
    await twinTarget.waitFor((requests) => requests.length >= 1);
    // One statement stores an event's every delivery, so once one arrived the fan-out's choice is all there.
    assert.deepEqual(
      (await deliveriesOf(liveEvent.id)).map((delivery) => delivery.endpointId),
      [liveEndpoint.id],
    );
    assert.deepEqual(
      (await deliveriesOf(testEvent.id)).map((delivery) => delivery.endpointId),
      [twinEndpoint.id],
    );

    const [liveRequest] = liveTarget.requests;
    const [twinRequest] = twinTarget.requests;
    assert.ok(liveRequest && twinRequest);
    const liveBody = verified(liveEndpoint, liveRequest);
    const twinBody = verified(twinEndpoint, twinRequest);
    assert.deepEqual([liveBody.id, liveBody.org_id, liveBody.livemode], [liveEvent.id, live.org_id, true]);
    assert.deepEqual([twinBody.id, twinBody.org_id, twinBody.livemode], [testEvent.id, twin.org_id, false]);
    assert.equal(liveRequest.headers['webhook-id'], liveEvent.id);
    assert.equal(twinRequest.headers['webhook-id'], testEvent.id);
    // A signature made with the other mode's secret does not verify: the two are separate endpoints entirely.
    assert.throws(() => new Webhook(twinEndpoint.secret).verify(liveRequest.body, liveRequest.headers as Record<string, string>));
  });
});

describe('POST /api/v1/test_helpers/webhooks/trigger', () => {
  test('sends the type’s example to the twin’s enabled endpoints subscribed to it, signed and logged, and to nobody else', async () => {
    const { live, twin } = liveAndTwin({ plan: 'starter' });
    const stranger = liveAndTwin().twin;
    const targets = {
      calls: await receiver(),
      everything: await receiver(),
      sms: await receiver(),
      disabled: await receiver(),
      live: await receiver(),
      stranger: await receiver(),
    };
    const calls = await endpointAt(twin, targets.calls, ['call.completed', 'call.failed']);
    const everything = await endpointAt(twin, targets.everything);
    await endpointAt(twin, targets.sms, ['sms.sent']);
    const disabled = await endpointAt(twin, targets.disabled);
    assert.equal((await call(twin, 'PATCH', `/api/v1/webhooks/${disabled.id}`, { status: 'disabled' })).status, 200);
    await endpointAt(live, targets.live);
    await endpointAt(stranger, targets.stranger);

    // Whatever reaches the events stream reaches this consumer, in the stream's order (see the end of the test).
    const onStream: string[] = [];
    await deps.bus.consume({ durable: 'test-mode-trigger-watch', types: ['call.completed'], concurrency: 1 }, async (event) => {
      onStream.push(event.id);
    });

    const { status, body } = await trigger(twin, { event_type: 'call.completed' });
    assert.equal(status, 202, JSON.stringify(body));
    const answer = triggeredEventSchema.parse(body);
    const { event } = answer;
    assert.equal(answer.object, 'triggered_event');
    assert.equal(event.type, 'call.completed');
    assert.equal(event.org_id, twin.org_id);
    assert.equal(event.livemode, false);
    assert.match(event.id, /^evt_[0-9A-Za-z]{20}$/);
    assert.deepEqual(event.data, eventExample('call.completed'));
    assert.equal(event.data.to, '+15005550101');
    assert.deepEqual(answer.deliveries.map((delivery) => delivery.endpoint_id).sort(), [calls.id, everything.id].sort());
    for (const delivery of answer.deliveries) {
      assert.equal(delivery.event_id, event.id);
      assert.equal(delivery.event_type, 'call.completed');
    }
    // The answer is the whole decision: no other endpoint (disabled, unsubscribed, live, another org's) has a delivery.
    assert.deepEqual(
      (await deliveriesOf(event.id)).map((delivery) => delivery.id).sort(),
      answer.deliveries.map((delivery) => delivery.id).sort(),
    );

    for (const [endpoint, target] of [
      [calls, targets.calls],
      [everything, targets.everything],
    ] as const) {
      const [request] = await target.waitFor((requests) => requests.length >= 1);
      assert.ok(request);
      assert.equal(request.headers['webhook-id'], event.id);
      assert.deepEqual(verified(endpoint, request), event);
      // Visible in the delivery log, as any delivery.
      const logged = await eventually('the delivery to succeed in the log', async () => {
        const page = await call<{ data: WebhookDelivery[] }>(twin, 'GET', `/api/v1/webhooks/${endpoint.id}/deliveries`);
        return page.body.data.find((delivery) => delivery.event_id === event.id && delivery.status === 'succeeded');
      });
      assert.equal(logged.response_status, 200);
    }

    // Not published on NATS: a real event published after it reaches the watcher, and the triggered one never did.
    const marker = await deps.bus.publish('call.completed', stranger.org_id, eventExample('call.completed'));
    await eventually('the marker event on the stream', () => onStream.includes(marker.id) || undefined);
    assert.deepEqual(onStream, [marker.id]);
    assert.equal(targets.sms.requests.length + targets.disabled.requests.length + targets.live.requests.length, 0);
  });

  test('every subscribable type, over NATS: a valid event of its type, delivered and verified', async () => {
    const { twin } = liveAndTwin();
    const target = await receiver();
    const endpoint = await endpointAt(twin, target);
    const sent = new Map<string, EventEnvelope>();
    for (const type of subscribableEventTypes) {
      const answer = await deps.bus.call(webhooksRpc.triggerEvent, twin, { event_type: type });
      assert.equal(answer.event.type, type);
      assert.equal(answer.event.livemode, false);
      assert.equal(answer.deliveries.length, 1, type);
      eventDataSchemas[type].parse(answer.event.data);
      sent.set(answer.event.id, answer.event as EventEnvelope);
    }
    const requests = await target.waitFor((received) => received.length >= subscribableEventTypes.length, 60_000);
    const received = requests.map((request) => verified(endpoint, request));
    assert.deepEqual(new Set(received.map((event) => event.id)), new Set(sent.keys()));
    for (const event of received) assert.deepEqual(event, sent.get(event.id));
  });

  test('a live identity is 404 on REST and NATS, and nothing is sent to its endpoints', async () => {
    const { live } = liveAndTwin();
    const target = await receiver();
    const endpoint = await endpointAt(live, target);
    const refused = await trigger(live, { event_type: 'call.completed' });
    assert.equal(refused.status, 404);
    assert.equal(refused.body.error.code, 'not_found');
    await assert.rejects(deps.bus.call(webhooksRpc.triggerEvent, live, { event_type: 'call.completed' }), { code: 'not_found' });
    assert.equal(await deps.prisma.delivery.count({ where: { endpointId: endpoint.id } }), 0);
    assert.equal(await deps.prisma.event.count({ where: { orgId: live.org_id } }), 0);
  });

  test('wrong input is 400 in the error envelope; a Lite plan is 403; no subscribed endpoint stores nothing', async () => {
    const { twin } = liveAndTwin();
    for (const payload of [
      {},
      { event_type: '*' },
      { event_type: 'api.called' },
      { event_type: 'org.plan_changed' },
      { event_type: 'webhook.test' },
      { event_type: 'call.exploded' },
      { event_type: 42 },
      { event_type: 'call.completed', data: { to: '+15005550102' } },
    ]) {
      const refused = await trigger(twin, payload);
      assert.equal(refused.status, 400, JSON.stringify(payload));
      assert.equal(refused.body.error.code, 'invalid_request', JSON.stringify(payload));
    }
    const badType = await trigger(twin, { event_type: 'api.called' });
    assert.equal(badType.body.error.param, 'event_type');

    const lite = liveAndTwin({ plan: 'lite' }).twin;
    const refused = await trigger(lite, { event_type: 'lead.created' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'plan_required');

    const lonely = await trigger(twin, { event_type: 'lead.created' });
    assert.equal(lonely.status, 202);
    assert.deepEqual(lonely.body.deliveries, []);
    assert.equal(await deps.prisma.event.count({ where: { id: lonely.body.event.id } }), 0);
  });
});
