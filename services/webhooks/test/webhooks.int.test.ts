import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpApp, newEvent, newId, parseEnv } from '@voice/kit';
import {
  createTestContext,
  eventually,
  gatewayHeaders,
  type Receiver,
  sampleEventData,
  startReceiver,
  type TestContext,
  testIdentity,
} from '@voice/kit/testing';
import {
  type Identity,
  type WebhookDelivery,
  type WebhookDeliveryWithEvent,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  webhooksRpc,
} from '@voice/proto';
import { buildApp } from '../src/app.js';
import { connectDeps, type WebhooksDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { fanOut, fanOutEvents } from '../src/nats/fanout.js';
import { loadReadmeRecipe, type VerifyWebhook } from './support/recipe.js';

let ctx: TestContext;
let deps: WebhooksDeps;
let app: HttpApp;
let verifyWebhook: VerifyWebhook;
const receivers: Receiver[] = [];

before(async () => {
  ctx = await createTestContext();
  deps = await connectDeps(
    parseEnv(envSchema, {
      ...ctx.env,
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: '50,100',
      WEBHOOK_SECRET_ROTATION_GRACE_MS: '3600000',
      // One fan-out loop keeps the stream's order, which lets a later event show that earlier ones made no delivery.
      WEBHOOK_FANOUT_CONCURRENCY: '1',
    }),
  );
  app = await buildApp(deps);
  verifyWebhook = await loadReadmeRecipe();
});

after(async () => {
  await Promise.allSettled(receivers.map((receiver) => receiver.close()));
  await app?.close();
  await deps?.close();
  await ctx?.cleanup();
});

async function call<T = unknown>(identity: Identity, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  const response = await app.inject({
    method,
    url,
    headers: gatewayHeaders(identity, method, url),
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: response.statusCode, body: response.json() as T };
}

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
}

async function createEndpoint(identity: Identity, url: string, eventTypes: string[] = ['*']) {
  const { status, body } = await call<WebhookEndpointWithSecret>(identity, 'POST', '/api/v1/webhooks', { url, event_types: eventTypes });
  assert.equal(status, 201, JSON.stringify(body));
  return body;
}

async function deliveries(identity: Identity, endpointId: string, query = '') {
  const { status, body } = await call<{ data: WebhookDelivery[]; has_more: boolean; next_cursor: string | null }>(
    identity,
    'GET',
    `/api/v1/webhooks/${endpointId}/deliveries${query}`,
  );
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

/** The endpoint's only delivery once it has reached a final status. */
async function settledDelivery(identity: Identity, endpointId: string, status: 'succeeded' | 'failed') {
  return eventually(`a ${status} delivery`, async () =>
    (await deliveries(identity, endpointId)).data.find((delivery) => delivery.status === status),
  );
}

describe('endpoints API', () => {
  test('create shows the secret once; get, list, update, rotate and delete', async () => {
    const identity = testIdentity({ plan: 'starter' });
    const created = await createEndpoint(identity, 'https://hooks.example.com/in', ['call.completed', 'sms.sent']);
    assert.match(created.secret, /^whsec_/);
    assert.equal(created.status, 'enabled');
    assert.deepEqual(created.event_types, ['call.completed', 'sms.sent']);

    const stored = await deps.prisma.endpoint.findFirst({ where: { orgId: identity.org_id, id: created.id } });
    assert.ok(stored);
    assert.equal(stored.secret.includes(created.secret.slice('whsec_'.length)), false, 'the secret is sealed at rest');
    assert.equal(deps.secretBox.open(stored.secret, created.id), created.secret);

    const fetched = await call<WebhookEndpoint>(identity, 'GET', `/api/v1/webhooks/${created.id}`);
    assert.equal(fetched.status, 200);
    assert.equal('secret' in fetched.body, false);

    const second = await createEndpoint(identity, 'https://other.example.com/in');
    const firstPage = await call<{ data: WebhookEndpoint[]; next_cursor: string }>(identity, 'GET', '/api/v1/webhooks?limit=1');
    assert.deepEqual(
      firstPage.body.data.map((endpoint) => endpoint.id),
      [second.id],
    );
    const nextPage = await call<{ data: WebhookEndpoint[]; has_more: boolean }>(
      identity,
      'GET',
      `/api/v1/webhooks?limit=1&cursor=${firstPage.body.next_cursor}`,
    );
    assert.deepEqual(
      nextPage.body.data.map((endpoint) => endpoint.id),
      [created.id],
    );
    assert.equal(nextPage.body.has_more, false);

    const updated = await call<WebhookEndpoint>(identity, 'PATCH', `/api/v1/webhooks/${created.id}`, {
      event_types: ['lead.created', '*'],
      description: 'CRM sync',
      status: 'disabled',
    });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.event_types, ['*']);
    assert.equal(updated.body.description, 'CRM sync');
    assert.equal(updated.body.status, 'disabled');
    assert.equal(updated.body.disabled_reason, 'manual');

    const rotated = await call<WebhookEndpointWithSecret>(identity, 'POST', `/api/v1/webhooks/${created.id}/rotate-secret`);
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, created.secret);
    assert.ok(rotated.body.secret_rotated_at);

    const deleted = await call(identity, 'DELETE', `/api/v1/webhooks/${created.id}`);
    assert.deepEqual(deleted, { status: 200, body: { id: created.id, object: 'webhook_endpoint', deleted: true } });
    assert.equal((await call(identity, 'GET', `/api/v1/webhooks/${created.id}`)).status, 404);
  });

  test('a Lite organization cannot create or change endpoints', async () => {
    const lite = testIdentity({ plan: 'lite' });
    const refused = await call<{ error: { code: string } }>(lite, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/in' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'plan_required');
    const someId = 'whk_0123456789abcdef';
    for (const [method, url] of [
      ['PATCH', `/api/v1/webhooks/${someId}`],
      ['DELETE', `/api/v1/webhooks/${someId}`],
      ['POST', `/api/v1/webhooks/${someId}/rotate-secret`],
      ['POST', `/api/v1/webhooks/${someId}/test`],
      ['POST', `/api/v1/webhooks/${someId}/deliveries/dlv_0123456789abcdef/replay`],
    ] as const) {
      const write = await call<{ error: { code: string } }>(lite, method, url, method === 'PATCH' ? { description: 'x' } : undefined);
      assert.equal(write.body.error.code, 'plan_required', `${method} ${url}`);
    }
    const listed = await call<{ data: unknown[] }>(lite, 'GET', '/api/v1/webhooks');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data, []);
  });

  test('invalid URLs and event types are refused with the parameter named', async () => {
    const identity = testIdentity();
    const badUrl = await call<{ error: { code: string; param: string } }>(identity, 'POST', '/api/v1/webhooks', { url: 'not a url' });
    assert.equal(badUrl.status, 400);
    assert.equal(badUrl.body.error.param, 'url');
    const badType = await call<{ error: { code: string } }>(identity, 'POST', '/api/v1/webhooks', {
      url: 'https://hooks.example.com/in',
      event_types: ['api.called'],
    });
    assert.equal(badType.status, 400);
    assert.equal(badType.body.error.code, 'invalid_request');
  });

  test('the OpenAPI document describes every route with its scope', async () => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as { paths: Record<string, Record<string, { 'x-scope'?: string }>> };
    assert.equal(document.paths['/api/v1/webhooks']?.post?.['x-scope'], 'read-write');
    assert.equal(document.paths['/api/v1/webhooks/{id}/deliveries']?.get?.['x-scope'], 'read');
    assert.equal(document.paths['/api/v1/webhooks/{id}/deliveries/{delivery_id}/replay']?.post?.['x-scope'], 'read-write');
  });

  test('other services read endpoints and deliveries over NATS, scoped to the caller', async () => {
    const identity = testIdentity();
    const endpoint = await createEndpoint(identity, 'https://hooks.example.com/nats');
    const page = await deps.bus.call(webhooksRpc.listEndpoints, identity, {});
    assert.deepEqual(
      page.data.map((item) => item.id),
      [endpoint.id],
    );
    assert.equal((await deps.bus.call(webhooksRpc.getEndpoint, identity, { id: endpoint.id })).url, 'https://hooks.example.com/nats');
    assert.deepEqual((await deps.bus.call(webhooksRpc.listDeliveries, identity, { id: endpoint.id })).data, []);
    await assert.rejects(deps.bus.call(webhooksRpc.getEndpoint, testIdentity(), { id: endpoint.id }), { code: 'not_found' });
  });

  test('the changes are NATS operations too: create, update, test, rotate, reveal for a person only, delete', async () => {
    const identity = testIdentity();
    const target = await receiver();
    const created = await deps.bus.call(webhooksRpc.createEndpoint, identity, { url: target.url, event_types: ['call.completed'] });
    assert.match(created.secret, /^whsec_/);
    const updated = await deps.bus.call(webhooksRpc.updateEndpoint, identity, { id: created.id, description: 'CRM', status: 'disabled' });
    assert.deepEqual([updated.description, updated.status, updated.disabled_reason], ['CRM', 'disabled', 'manual']);
    await assert.rejects(deps.bus.call(webhooksRpc.sendTestEvent, identity, { id: created.id }), { code: 'conflict' });
    await deps.bus.call(webhooksRpc.updateEndpoint, identity, { id: created.id, status: 'enabled' });
    const sent = await deps.bus.call(webhooksRpc.sendTestEvent, identity, { id: created.id });
    await eventually('the test delivery', () => target.requests.length === 1);
    const replayed = await deps.bus.call(webhooksRpc.replayDelivery, identity, { id: created.id, delivery_id: sent.id });
    assert.equal(replayed.replay_of, sent.id);

    const rotated = await deps.bus.call(webhooksRpc.rotateSecret, identity, { id: created.id });
    assert.notEqual(rotated.secret, created.secret);
    await assert.rejects(deps.bus.call(webhooksRpc.revealSecret, identity, { id: created.id }), { code: 'forbidden' });
    const person = { ...identity, user_id: 'usr_0123456789abcdefghij', key_id: 'usr_0123456789abcdefghij' };
    assert.equal((await deps.bus.call(webhooksRpc.revealSecret, person, { id: created.id })).secret, rotated.secret);
    await assert.rejects(deps.bus.call(webhooksRpc.revealSecret, { ...person, scope: 'read' }, { id: created.id }), {
      code: 'forbidden_scope',
    });

    await assert.rejects(deps.bus.call(webhooksRpc.deleteEndpoint, { ...identity, scope: 'read' }, { id: created.id }), {
      code: 'forbidden_scope',
    });
    await assert.rejects(deps.bus.call(webhooksRpc.deleteEndpoint, testIdentity(), { id: created.id }), { code: 'not_found' });
    assert.deepEqual(await deps.bus.call(webhooksRpc.deleteEndpoint, identity, { id: created.id }), {
      id: created.id,
      object: 'webhook_endpoint',
      deleted: true,
    });
    await assert.rejects(deps.bus.call(webhooksRpc.getEndpoint, identity, { id: created.id }), { code: 'not_found' });
  });

  test("a record's events and their deliveries, by the record's id (read scope), never another organization's", async () => {
    const identity = testIdentity();
    const stranger = testIdentity();
    const target = await receiver();
    const endpoint = await createEndpoint(identity, target.url, ['call.queued', 'call.completed']);
    await createEndpoint(stranger, target.url);
    const aCall = () => {
      const id = newId('call');
      return sampleEventData('call.queued', { id, call_id: id });
    };
    const call = aCall();
    const callId = call.call_id;
    const queued = await deps.bus.publish('call.queued', identity.org_id, call);
    // Not subscribed: the event is due to no endpoint, so it is not in the log.
    await deps.bus.publish('call.ringing', identity.org_id, { ...call, status: 'ringing' });
    const completed = await deps.bus.publish('call.completed', identity.org_id, { ...call, status: 'completed' });
    // Another call, and the same id in another organization (ids are never shared, but the scope is the organization's).
    await deps.bus.publish('call.queued', identity.org_id, aCall());
    await deps.bus.publish('call.queued', stranger.org_id, call);
    await eventually('both deliveries succeeded', async () => {
      const log = await deliveries(identity, endpoint.id);
      return log.data.length === 3 && log.data.every((delivery) => delivery.status === 'succeeded');
    });

    const read = { ...identity, scope: 'read' as const };
    const events = await deps.bus.call(webhooksRpc.listRecordEvents, read, { record_id: callId });
    assert.equal(events.has_more, false);
    assert.deepEqual(
      events.data.map((event) => [event.id, event.type]),
      [
        [queued.id, 'call.queued'],
        [completed.id, 'call.completed'],
      ],
    );
    for (const event of events.data) {
      assert.equal(event.deliveries.length, 1);
      assert.deepEqual(
        [event.deliveries[0]?.endpoint_id, event.deliveries[0]?.endpoint_url, event.deliveries[0]?.status, event.deliveries[0]?.event_id],
        [endpoint.id, target.url, 'succeeded', event.id],
      );
    }
    const theirs = await eventually("the stranger's delivery", async () => {
      const page = await deps.bus.call(webhooksRpc.listRecordEvents, stranger, { record_id: callId });
      return page.data.length === 1 ? page : undefined;
    });
    assert.equal(theirs.data[0]?.deliveries[0]?.endpoint_id === endpoint.id, false);
    assert.deepEqual((await deps.bus.call(webhooksRpc.listRecordEvents, testIdentity(), { record_id: callId })).data, []);
    await assert.rejects(deps.bus.call(webhooksRpc.listRecordEvents, identity, { record_id: 'not an id' }), { code: 'invalid_request' });
  });

  test("another organization's endpoint is 404 everywhere", async () => {
    const owner = testIdentity();
    const stranger = testIdentity();
    const endpoint = await createEndpoint(owner, 'https://hooks.example.com/in');
    const base = `/api/v1/webhooks/${endpoint.id}`;
    for (const [method, url, payload] of [
      ['GET', base, undefined],
      ['PATCH', base, { description: 'mine now' }],
      ['DELETE', base, undefined],
      ['POST', `${base}/rotate-secret`, undefined],
      ['POST', `${base}/test`, undefined],
      ['GET', `${base}/deliveries`, undefined],
      ['POST', `${base}/deliveries/dlv_0123456789abcdef/replay`, undefined],
    ] as const) {
      const response = await call<{ error: { code: string } }>(stranger, method, url, payload);
      assert.equal(response.status, 404, `${method} ${url}`);
      assert.equal(response.body.error.code, 'not_found');
    }
    assert.equal((await call(owner, 'GET', base)).status, 200);
  });
});

describe('delivery', () => {
  test('events arrive signed as the README recipe verifies, only for subscribed types of the own organization', async () => {
    const identity = testIdentity();
    const target = await receiver();
    const endpoint = await createEndpoint(identity, target.url, ['call.completed']);
    await deps.bus.publish('sms.sent', identity.org_id, sampleEventData('sms.sent'));
    await deps.bus.publish('api.called', identity.org_id, { calls: [] });
    await deps.bus.publish('call.completed', testIdentity().org_id, sampleEventData('call.completed', { call_id: 'call_otherorg1' }));
    const event = await deps.bus.publish(
      'call.completed',
      identity.org_id,
      sampleEventData('call.completed', { call_id: 'call_12345678' }),
    );

    const [request] = await target.waitFor((requests) => requests.length >= 1);
    assert.ok(request);
    assert.equal(request.headers['webhook-id'], event.id);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), event);
    assert.equal(verifyWebhook(endpoint.secret, request.headers, request.body), true);
    assert.equal(verifyWebhook(endpoint.secret, request.headers, `${request.body} `), false);

    // Fan-out handles events in order, so the earlier ones were already decided: none made a delivery.
    const delivered = await settledDelivery(identity, endpoint.id, 'succeeded');
    assert.equal(delivered.event_id, event.id);
    assert.equal(delivered.attempt_count, 1);
    assert.equal(delivered.response_status, 200);
    assert.equal(delivered.response_excerpt, 'answered 200');
    assert.equal((await deliveries(identity, endpoint.id)).data.length, 1);
    assert.equal(target.requests.length, 1);
  });

  test('a receiver that fails twice then succeeds gets the event three times with the same webhook-id', async () => {
    const identity = testIdentity();
    const target = await receiver((_request, index) => (index < 2 ? 500 : 200));
    const endpoint = await createEndpoint(identity, target.url);
    const event = await deps.bus.publish('lead.created', identity.org_id, sampleEventData('lead.created'));

    const delivery = await settledDelivery(identity, endpoint.id, 'succeeded');
    assert.equal(target.requests.length, 3);
    assert.deepEqual(
      target.requests.map((request) => request.headers['webhook-id']),
      [event.id, event.id, event.id],
    );
    for (const request of target.requests) assert.equal(verifyWebhook(endpoint.secret, request.headers, request.body), true);
    assert.equal(delivery.attempt_count, 3);
    assert.equal(delivery.response_status, 200);
    assert.equal(delivery.next_attempt_at, null);
    const healthy = await call<WebhookEndpoint>(identity, 'GET', `/api/v1/webhooks/${endpoint.id}`);
    assert.equal(healthy.body.failing_since, null);
  });

  test('410 disables the endpoint at once', async () => {
    const identity = testIdentity();
    const gone = await receiver(() => 410);
    const healthy = await receiver();
    const endpoint = await createEndpoint(identity, gone.url);
    await createEndpoint(identity, healthy.url);
    await deps.bus.publish('call.completed', identity.org_id, sampleEventData('call.completed', { call_id: 'call_12345678' }));

    const delivery = await settledDelivery(identity, endpoint.id, 'failed');
    assert.equal(delivery.attempt_count, 1);
    assert.equal(delivery.response_status, 410);
    const disabled = await call<WebhookEndpoint>(identity, 'GET', `/api/v1/webhooks/${endpoint.id}`);
    assert.equal(disabled.body.status, 'disabled');
    assert.equal(disabled.body.disabled_reason, 'endpoint_gone');

    // The next event reaches only the enabled endpoint; once it arrived there, fan-out has passed the disabled one by.
    await deps.bus.publish('call.completed', identity.org_id, sampleEventData('call.completed', { call_id: 'call_87654321' }));
    await healthy.waitFor((requests) => requests.length >= 2);
    assert.equal(gone.requests.length, 1);
    assert.equal((await deliveries(identity, endpoint.id)).data.length, 1);
    const test = await call<{ error: { code: string } }>(identity, 'POST', `/api/v1/webhooks/${endpoint.id}/test`);
    assert.equal(test.status, 409);
  });

  test('an endpoint that has failed for five days is disabled at its next failure', async () => {
    const identity = testIdentity();
    const target = await receiver(() => 500);
    const endpoint = await createEndpoint(identity, target.url);
    const sixDaysAgo = new Date(Date.now() - 6 * 24 * 3_600_000);
    await deps.prisma.endpoint.updateMany({ where: { orgId: identity.org_id, id: endpoint.id }, data: { failingSince: sixDaysAgo } });
    await deps.bus.publish('sms.received', identity.org_id, sampleEventData('sms.received'));

    const dead = await settledDelivery(identity, endpoint.id, 'failed');
    assert.equal(dead.attempt_count, 1);
    assert.equal(target.requests.length, 1);
    const disabled = await call<WebhookEndpoint>(identity, 'GET', `/api/v1/webhooks/${endpoint.id}`);
    assert.equal(disabled.body.status, 'disabled');
    assert.equal(disabled.body.disabled_reason, 'failing');
    assert.equal(disabled.body.failing_since, sixDaysAgo.toISOString());

    const enabled = await call<WebhookEndpoint>(identity, 'PATCH', `/api/v1/webhooks/${endpoint.id}`, { status: 'enabled' });
    assert.equal(enabled.body.status, 'enabled');
    assert.equal(enabled.body.disabled_reason, null);
    assert.equal(enabled.body.failing_since, null);
  });

  test('exhausted retries leave a dead letter that replay delivers again with the same webhook-id', async () => {
    const identity = testIdentity();
    let failing = true;
    const target = await receiver(() => (failing ? 503 : 200));
    const endpoint = await createEndpoint(identity, target.url);
    const event = await deps.bus.publish('invoice.sent', identity.org_id, sampleEventData('invoice.sent'));

    const dead = await settledDelivery(identity, endpoint.id, 'failed');
    assert.equal(dead.attempt_count, 3);
    assert.equal(dead.response_status, 503);
    assert.equal(dead.next_attempt_at, null);
    const deadLetters = await deliveries(identity, endpoint.id, '?status=failed');
    assert.deepEqual(
      deadLetters.data.map((delivery) => delivery.id),
      [dead.id],
    );
    const endpointNow = await call<WebhookEndpoint>(identity, 'GET', `/api/v1/webhooks/${endpoint.id}`);
    assert.equal(endpointNow.body.status, 'enabled');
    assert.ok(endpointNow.body.failing_since);

    failing = false;
    const replay = await call<WebhookDelivery>(identity, 'POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${dead.id}/replay`);
    assert.equal(replay.status, 202);
    assert.equal(replay.body.replay_of, dead.id);
    assert.equal(replay.body.event_id, event.id);
    const replayed = await eventually('the replayed delivery to succeed', async () => {
      const { body } = await call<WebhookDeliveryWithEvent>(
        identity,
        'GET',
        `/api/v1/webhooks/${endpoint.id}/deliveries/${replay.body.id}`,
      );
      return body.status === 'succeeded' ? body : undefined;
    });
    assert.equal(replayed.attempt_count, 1);
    assert.deepEqual(replayed.event, event);
    assert.equal(target.requests.length, 4);
    assert.equal(target.requests.at(-1)?.headers['webhook-id'], event.id);

    const firstPage = await deliveries(identity, endpoint.id, '?limit=1');
    assert.deepEqual(
      firstPage.data.map((delivery) => delivery.id),
      [replay.body.id],
    );
    assert.equal(firstPage.has_more, true);
    const secondPage = await deliveries(identity, endpoint.id, `?limit=1&cursor=${firstPage.next_cursor}`);
    assert.deepEqual(
      secondPage.data.map((delivery) => delivery.id),
      [dead.id],
    );
  });

  test('the test event goes to the one endpoint asked for', async () => {
    const identity = testIdentity();
    const target = await receiver();
    const endpoint = await createEndpoint(identity, target.url);
    const sent = await call<WebhookDelivery>(identity, 'POST', `/api/v1/webhooks/${endpoint.id}/test`);
    assert.equal(sent.status, 202);
    assert.equal(sent.body.event_type, 'webhook.test');
    const [request] = await target.waitFor((requests) => requests.length >= 1);
    assert.ok(request);
    const body = JSON.parse(request.body) as { type: string; org_id: string; data: { endpoint_id: string } };
    assert.equal(body.type, 'webhook.test');
    assert.equal(body.org_id, identity.org_id);
    assert.equal(body.data.endpoint_id, endpoint.id);
    assert.equal(verifyWebhook(endpoint.secret, request.headers, request.body), true);
  });

  test('after a rotation both the new and the old secret verify', async () => {
    const identity = testIdentity();
    const target = await receiver();
    const endpoint = await createEndpoint(identity, target.url);
    const rotated = await call<WebhookEndpointWithSecret>(identity, 'POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`);
    await deps.bus.publish('lead.updated', identity.org_id, sampleEventData('lead.updated'));
    const [request] = await target.waitFor((requests) => requests.length >= 1);
    assert.ok(request);
    assert.equal(String(request.headers['webhook-signature']).split(' ').length, 2);
    assert.equal(verifyWebhook(rotated.body.secret, request.headers, request.body), true);
    assert.equal(verifyWebhook(endpoint.secret, request.headers, request.body), true);
  });

  test('a redelivered event makes no second delivery', async () => {
    const identity = testIdentity();
    const target = await receiver();
    const endpoint = await createEndpoint(identity, target.url);
    const event = await deps.bus.publish('lead.created', identity.org_id, sampleEventData('lead.created'));
    await settledDelivery(identity, endpoint.id, 'succeeded');
    // What JetStream does when a replica dies after queueing but before acknowledging: the same event again.
    await fanOut(deps, event);
    assert.deepEqual(await deps.queue.getJobCounts('wait', 'delayed', 'active'), { wait: 0, delayed: 0, active: 0 });
    const log = await deliveries(identity, endpoint.id);
    assert.equal(log.data.length, 1);
    assert.equal(target.requests.length, 1);
  });

  test('events fanned out together get the deliveries each would alone, the same event twice stored once', async () => {
    const [first, second] = [testIdentity(), testIdentity()];
    const [everything, leadsOnly, other] = [await receiver(), await receiver(), await receiver()];
    const firstAll = await createEndpoint(first, everything.url);
    const firstLeads = await createEndpoint(first, leadsOnly.url, ['lead.created']);
    const secondAll = await createEndpoint(second, other.url);
    const lead = newEvent('lead.created', first.org_id, sampleEventData('lead.created'));
    const call = newEvent('call.completed', first.org_id, sampleEventData('call.completed'));
    const update = newEvent('lead.updated', second.org_id, sampleEventData('lead.updated'));
    // As the consumer's batch holds them: a redelivery of `lead` beside the first delivery of it.
    await fanOutEvents(deps, [lead, call, update, lead]);
    const ids = (receiver: Receiver) => receiver.requests.map((request) => String(request.headers['webhook-id'])).sort();
    await everything.waitFor((requests) => requests.length >= 2);
    await leadsOnly.waitFor((requests) => requests.length >= 1);
    await other.waitFor((requests) => requests.length >= 1);
    for (const [identity, endpoint, count] of [
      [first, firstAll, 2],
      [first, firstLeads, 1],
      [second, secondAll, 1],
    ] as const) {
      await eventually('every delivery to succeed', async () => {
        const log = await deliveries(identity, endpoint.id);
        return log.data.length === count && log.data.every((delivery) => delivery.status === 'succeeded') ? true : undefined;
      });
    }
    assert.deepEqual(ids(everything), [lead.id, call.id].sort());
    assert.deepEqual(ids(leadsOnly), [lead.id]);
    assert.deepEqual(ids(other), [update.id]);
  });
});
