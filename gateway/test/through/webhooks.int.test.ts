// Webhooks through the gateway: endpoints, the delivery log, test events, replay and secret rotation, with a
// local receiver that checks the Standard Webhooks signature of what arrives; and the plan rules.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { VoiceClient, verifyWebhook } from '@voice/client';
import { eventually } from '@voice/kit/testing';
import {
  assertError,
  assertRateLimitHeaders,
  assertRecord,
  type Client,
  client,
  idemKey,
  type Json,
  missingId,
  ok,
  type Platform,
  startPlatform,
  walk,
} from '../support/harness.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  event: Json;
}

/** The README's verification recipe, as a receiver runs it. */
function verify(secret: string, headers: IncomingHttpHeaders, rawBody: string): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`);
  return String(headers['webhook-signature'])
    .split(' ')
    .some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('webhooks through the gateway', () => {
  let platform: Platform;
  let receiver: Server;
  let receiverUrl: string;
  const received: Received[] = [];
  let org: { orgId: string; keyId: string; key: string };
  let api: Client;
  let readApi: Client;
  let other: Client;
  let endpoint: Json;
  let secret: string;
  let testDelivery: Json;

  const arrivals = (path: string, type?: string) =>
    received.filter((item) => item.path === path && (type === undefined || item.event.type === type));

  before(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({ path: request.url ?? '', headers: request.headers, raw, event: JSON.parse(raw) });
        response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    platform = await startPlatform();
    org = await platform.org({ plan: 'starter' });
    api = client(platform.url, org.key);
    const readKey = (await platform.gateway.admin({ kind: 'key.create', orgId: org.orgId, scope: 'read', monthlyQuota: 10_000 })) as {
      key: string;
    };
    readApi = client(platform.url, readKey.key);
    other = client(platform.url, (await platform.org({ plan: 'starter' })).key);
  });
  after(async () => {
    await platform?.close();
    receiver?.closeAllConnections();
    receiver?.close();
  });

  test('a Starter organization creates an endpoint and gets its secret once', async () => {
    endpoint = ok(await api.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/main`, description: 'Main receiver' }), 201);
    assertRecord(endpoint, 'whk', 'webhook_endpoint');
    assert.equal(endpoint.url, `${receiverUrl}/hooks/main`);
    assert.deepEqual(endpoint.event_types, ['*']);
    assert.equal(endpoint.status, 'enabled');
    assert.equal(endpoint.disabled_reason, null);
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/);
    secret = endpoint.secret;
  });

  test('creating with the same Idempotency-Key twice gives one endpoint and the same response; another body is 409', async (t) => {
    const body = { url: `${receiverUrl}/hooks/idem`, event_types: ['invoice.sent'] };
    const key = idemKey('whk');
    t.after(async () => {
      // Whatever happened above, leave only the main endpoint behind for the tests that follow.
      for (const item of ok(await api.get('/api/v1/webhooks?limit=100')).data) {
        if (item.url === body.url) await api.delete(`/api/v1/webhooks/${item.id}`);
      }
    });
    const first = ok(await api.post('/api/v1/webhooks', body, { idempotencyKey: key }), 201);
    const again = await api.post('/api/v1/webhooks', body, { idempotencyKey: key });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, first, 'the replay is the first response');
    // What Redis keeps for the key names the endpoint; the secret stays sealed in Postgres.
    const redis = platform.gateway.deps.redis;
    const stored = await Promise.all((await redis.keys(`${platform.ctx.redisPrefix}idem:*`)).map((name) => redis.get(name)));
    assert.ok(stored.length > 0);
    assert.equal(stored.join('').includes('whsec_'), false, 'no signing secret in Redis');
    assertError(
      await api.post('/api/v1/webhooks', { ...body, event_types: ['project.delivered'] }, { idempotencyKey: key }),
      409,
      'idempotency_conflict',
    );
    const idem = ok(await api.get('/api/v1/webhooks?limit=100')).data.filter((item: Json) => item.url === body.url);
    assert.equal(idem.length, 1, 'one endpoint for two requests with one key');
  });

  test('list and get never show the secret; update changes the description, event types and status', async () => {
    const list = ok(await api.get('/api/v1/webhooks'));
    const listed = list.data.find((item: Json) => item.id === endpoint.id);
    assertRecord(listed, 'whk', 'webhook_endpoint');
    assert.equal(listed.secret, undefined);
    const got = ok(await api.get(`/api/v1/webhooks/${endpoint.id}`));
    assert.equal(got.secret, undefined);
    assert.equal(got.description, 'Main receiver');

    const updated = ok(
      await api.patch(`/api/v1/webhooks/${endpoint.id}`, { description: 'Renamed', event_types: ['lead.created', 'lead.created'] }),
    );
    assert.equal(updated.description, 'Renamed');
    assert.deepEqual(updated.event_types, ['lead.created']);
    const disabled = ok(await api.patch(`/api/v1/webhooks/${endpoint.id}`, { status: 'disabled' }));
    assert.equal(disabled.status, 'disabled');
    assert.equal(disabled.disabled_reason, 'manual');
    assertError(await api.post(`/api/v1/webhooks/${endpoint.id}/test`), 409, 'conflict');
    const enabled = ok(await api.patch(`/api/v1/webhooks/${endpoint.id}`, { status: 'enabled' }));
    assert.equal(enabled.status, 'enabled');
    assert.equal(enabled.disabled_reason, null);
  });

  test('a test event arrives at the local receiver, signed with the endpoint secret; the delivery log shows it', async () => {
    testDelivery = ok(await api.post(`/api/v1/webhooks/${endpoint.id}/test`), 202);
    assertRecord(testDelivery, 'dlv', 'webhook_delivery');
    assert.equal(testDelivery.endpoint_id, endpoint.id);
    assert.equal(testDelivery.event_type, 'webhook.test');

    const [arrival] = await eventually('the test event', async () => {
      const found = arrivals('/hooks/main', 'webhook.test');
      return found.length > 0 ? found : undefined;
    });
    assert.ok(arrival);
    assert.equal(arrival.headers['content-type'], 'application/json');
    assert.equal(arrival.headers['webhook-id'], testDelivery.event_id);
    assert.ok(verify(secret, arrival.headers, arrival.raw), 'the signature verifies with the secret shown at creation');
    assert.equal(verify(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`, arrival.headers, arrival.raw), false);
    assert.equal(arrival.event.id, testDelivery.event_id);
    assert.equal(arrival.event.org_id, org.orgId);
    assert.equal(arrival.event.data.endpoint_id, endpoint.id);
    assert.match(arrival.event.created_at, /Z$/);

    const delivered = await eventually('the delivery to succeed', async () => {
      const current = ok(await api.get(`/api/v1/webhooks/${endpoint.id}/deliveries/${testDelivery.id}`));
      return current.status === 'succeeded' ? current : undefined;
    });
    assert.equal(delivered.response_status, 200);
    assert.equal(delivered.response_excerpt, 'thanks');
    assert.equal(delivered.attempt_count, 1);
    const log = ok(await api.get(`/api/v1/webhooks/${endpoint.id}/deliveries?event_type=webhook.test`));
    assert.deepEqual(
      log.data.map((item: Json) => item.id),
      [testDelivery.id],
    );
  });

  test('replay sends the same event again (same webhook-id); a rotated secret signs next to the old one', async () => {
    const rotated = ok(await api.post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`));
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, secret);
    assert.match(rotated.secret_rotated_at, /Z$/);

    const replay = ok(await api.post(`/api/v1/webhooks/${endpoint.id}/deliveries/${testDelivery.id}/replay`), 202);
    assertRecord(replay, 'dlv', 'webhook_delivery');
    assert.equal(replay.replay_of, testDelivery.id);
    assert.equal(replay.event_id, testDelivery.event_id);
    const arrivalsOfEvent = await eventually('the replayed event', async () => {
      const found = arrivals('/hooks/main', 'webhook.test').filter((item) => item.event.id === testDelivery.event_id);
      return found.length >= 2 ? found : undefined;
    });
    const last = arrivalsOfEvent[arrivalsOfEvent.length - 1] as Received;
    assert.equal(last.headers['webhook-id'], testDelivery.event_id);
    assert.ok(verify(rotated.secret, last.headers, last.raw), 'signed with the new secret');
    assert.ok(verify(secret, last.headers, last.raw), 'and, during the grace period, with the old one');
    secret = rotated.secret;
  });

  test('a domain event from another service (lead.created through the gateway) is delivered to the subscribed endpoint', async () => {
    const lead = ok(await api.post('/api/v1/leads', { name: 'Grace Hopper' }, { idempotencyKey: idemKey('lead') }), 201);
    const [arrival] = await eventually('lead.created', async () => {
      const found = arrivals('/hooks/main', 'lead.created').filter((item) => item.event.data.id === lead.id);
      return found.length > 0 ? found : undefined;
    });
    assert.ok(arrival);
    assert.ok(verify(secret, arrival.headers, arrival.raw));
    assert.equal(arrival.event.org_id, org.orgId);
    assert.equal(arrival.event.data.name, 'Grace Hopper');
  });

  test('@voice/client: an endpoint, a test event verified by verifyWebhook, the delivery log, replay and rotation', async () => {
    const voice = new VoiceClient({ apiKey: org.key, baseUrl: platform.url });
    const created = await voice.webhooks.create({ url: `${receiverUrl}/hooks/client`, description: 'Typed client' });
    const delivery = await voice.webhooks.test(created.id);
    const [arrival] = await eventually('the test event at the client endpoint', async () => {
      const found = arrivals('/hooks/client', 'webhook.test');
      return found.length > 0 ? found : undefined;
    });
    assert.ok(arrival);
    const event = verifyWebhook<{ id: string; type: string }>(arrival.raw, arrival.headers, created.secret);
    assert.equal(event.id, delivery.event_id);
    assert.equal(event.type, 'webhook.test');
    assert.throws(() => verifyWebhook(arrival.raw, arrival.headers, secret), /no signature matches/, 'another endpoint’s secret');

    await eventually('the delivery to succeed', async () =>
      (await voice.webhooks.deliveries.get(created.id, delivery.id)).status === 'succeeded' ? true : undefined,
    );
    const log: string[] = [];
    for await (const item of voice.webhooks.deliveries.list(created.id, { event_type: 'webhook.test' })) log.push(item.id);
    assert.deepEqual(log, [delivery.id]);
    const endpoints: string[] = [];
    for await (const item of voice.webhooks.list()) endpoints.push(item.id);
    assert.ok(endpoints.includes(created.id));

    // After a rotation the replay is signed with both secrets, and verifies with either.
    const rotated = await voice.webhooks.rotateSecret(created.id);
    await voice.webhooks.deliveries.replay(created.id, delivery.id);
    const replayed = await eventually('the replay', async () => {
      const found = arrivals('/hooks/client', 'webhook.test');
      return found.length > 1 ? found[1] : undefined;
    });
    assert.equal(verifyWebhook<{ id: string }>(replayed.raw, replayed.headers, rotated.secret).id, delivery.event_id);
    assert.equal(verifyWebhook<{ id: string }>(replayed.raw, replayed.headers, created.secret).id, delivery.event_id);
    assert.equal((await voice.webhooks.delete(created.id)).deleted, true);
  });

  test('delete removes the endpoint and its log', async () => {
    const doomed = ok(await api.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/doomed` }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/webhooks/${doomed.id}`)), { id: doomed.id, object: 'webhook_endpoint', deleted: true });
    assertError(await api.get(`/api/v1/webhooks/${doomed.id}`), 404, 'not_found');
    assertError(await api.get(`/api/v1/webhooks/${doomed.id}/deliveries`), 404, 'not_found');
    assertError(await api.delete(`/api/v1/webhooks/${doomed.id}`), 404, 'not_found');
  });

  test('cursor pagination walks endpoints and deliveries over three pages with no duplicate and no gap', async () => {
    const fresh = client(platform.url, (await platform.org({ plan: 'starter' })).key);
    const created: string[] = [];
    for (let n = 0; n < 7; n++) created.push(ok(await fresh.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/page-${n}` }), 201).id);
    const walked = await walk(fresh, '/api/v1/webhooks', 3);
    assert.equal(walked.pages, 3);
    assert.deepEqual(walked.ids, [...created].reverse());

    const target = created[0] as string;
    const deliveries: string[] = [];
    for (let n = 0; n < 7; n++) deliveries.push(ok(await fresh.post(`/api/v1/webhooks/${target}/test`), 202).id);
    const log = await walk(fresh, `/api/v1/webhooks/${target}/deliveries`, 3);
    assert.equal(log.pages, 3);
    assert.deepEqual([...log.ids].sort(), [...deliveries].sort());
    assert.deepEqual(log.ids, [...deliveries].reverse());

    const first = ok(await fresh.get(`/api/v1/webhooks/${target}/deliveries?limit=3&status=pending`));
    if (first.next_cursor !== null) {
      assertError(
        await fresh.get(`/api/v1/webhooks/${target}/deliveries?limit=3&status=failed&cursor=${encodeURIComponent(first.next_cursor)}`),
        400,
        'invalid_cursor',
      );
    }
    const firstEndpoints = ok(await fresh.get('/api/v1/webhooks?limit=3'));
    assertError(
      await fresh.get(`/api/v1/webhooks?limit=3&status=disabled&cursor=${encodeURIComponent(firstEndpoints.next_cursor)}`),
      400,
      'invalid_cursor',
    );
  });

  test('every success carries X-RateLimit-* and Request-Id; Remaining drops by one per call', async () => {
    const metered = await platform.org({ plan: 'starter', quota: 20 });
    const m = client(platform.url, metered.key);
    let id = '';
    await assertRateLimitHeaders(
      [
        () => m.get('/api/v1/webhooks'),
        async () => {
          const response = await m.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/metered` });
          id = response.body?.id;
          return response;
        },
        () => m.get(`/api/v1/webhooks/${id}`),
        () => m.get(`/api/v1/webhooks/${id}/deliveries`),
      ],
      20,
    );
  });

  test('a read key gets 403 forbidden_scope on every write route and succeeds on every read route', async () => {
    const writes: Array<[string, string, Json]> = [
      ['POST', '/api/v1/webhooks', { url: `${receiverUrl}/hooks/nope` }],
      ['PATCH', `/api/v1/webhooks/${endpoint.id}`, { description: 'Nope' }],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`, undefined],
      ['POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, undefined],
      ['POST', `/api/v1/webhooks/${endpoint.id}/test`, undefined],
      ['POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${testDelivery.id}/replay`, undefined],
    ];
    for (const [method, path, body] of writes) {
      assertError(await readApi.call(method, path, body === undefined ? {} : { body }), 403, 'forbidden_scope');
    }
    assert.equal(ok(await api.get(`/api/v1/webhooks/${endpoint.id}`)).description, 'Renamed', 'nothing changed');
    for (const path of [
      '/api/v1/webhooks',
      `/api/v1/webhooks/${endpoint.id}`,
      `/api/v1/webhooks/${endpoint.id}/deliveries`,
      `/api/v1/webhooks/${endpoint.id}/deliveries/${testDelivery.id}`,
    ]) {
      ok(await readApi.get(path));
    }
  });

  test("another organization gets 404 not_found for the first one's endpoints and deliveries, and empty lists", async () => {
    const attempts: Array<[string, string, Json]> = [
      ['GET', `/api/v1/webhooks/${endpoint.id}`, undefined],
      ['PATCH', `/api/v1/webhooks/${endpoint.id}`, { description: 'Mine' }],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`, undefined],
      ['POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, undefined],
      ['POST', `/api/v1/webhooks/${endpoint.id}/test`, undefined],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, undefined],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries/${testDelivery.id}`, undefined],
      ['POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${testDelivery.id}/replay`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      assertError(await other.call(method, path, body === undefined ? {} : { body }), 404, 'not_found');
    }
    assert.deepEqual(ok(await other.get('/api/v1/webhooks')), { data: [], has_more: false, next_cursor: null });
    assert.equal(ok(await api.get(`/api/v1/webhooks/${endpoint.id}`)).description, 'Renamed', 'nothing changed');
  });

  test('Lite: a Lite key is read-only (forbidden_scope on writes, reads work); a Starter key downgraded to Lite is narrowed', async () => {
    const lite = await platform.org({ plan: 'lite', scope: 'read' });
    const liteApi = client(platform.url, lite.key);
    assertError(await liteApi.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/lite` }), 403, 'forbidden_scope');
    assert.deepEqual(ok(await liteApi.get('/api/v1/webhooks')), { data: [], has_more: false, next_cursor: null });

    const starter = await platform.org({ plan: 'starter' });
    const starterApi = client(platform.url, starter.key);
    const kept = ok(await starterApi.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/downgraded` }), 201);
    await platform.gateway.admin({ kind: 'org.set-plan', orgId: starter.orgId, plan: 'lite' });
    // The gateway hears of the change over NATS; its own usage report says when it has.
    await eventually('the gateway to see the Lite plan', async () => {
      const usage = ok(await starterApi.get('/api/v1/usage'));
      return usage.plan === 'lite' ? usage : undefined;
    });
    assertError(await starterApi.post('/api/v1/webhooks', { url: `${receiverUrl}/hooks/after` }), 403, 'forbidden_scope');
    assertError(await starterApi.patch(`/api/v1/webhooks/${kept.id}`, { description: 'x' }), 403, 'forbidden_scope');
    assertError(await starterApi.post(`/api/v1/webhooks/${kept.id}/test`), 403, 'forbidden_scope');
    // Reading what was made on Starter still works.
    assert.deepEqual(
      ok(await starterApi.get('/api/v1/webhooks')).data.map((item: Json) => item.id),
      [kept.id],
    );
    ok(await starterApi.get(`/api/v1/webhooks/${kept.id}`));
  });

  test('bad input is a 4xx in the envelope, never a 500', async () => {
    assertError(await api.call('POST', '/api/v1/webhooks', { raw: '{"url":' }), 400, 'invalid_request');
    assertError(await api.call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { raw: '{' }), 400, 'invalid_request');
    assertError(await api.post('/api/v1/webhooks', { url: 42 }), 400, 'invalid_request', 'url');
    assertError(await api.post('/api/v1/webhooks', { url: 'ftp://example.com/hook' }), 400, 'invalid_request', 'url');
    assertError(await api.post('/api/v1/webhooks', { url: 'https://user:pw@example.com/hook' }), 400, 'invalid_request', 'url');
    assertError(
      await api.post('/api/v1/webhooks', { url: `${receiverUrl}/x`, event_types: ['no.such_event'] }),
      400,
      'invalid_request',
      'event_types.0',
    );
    assertError(
      await api.post('/api/v1/webhooks', { url: `${receiverUrl}/x`, event_types: 'lead.created' }),
      400,
      'invalid_request',
      'event_types',
    );
    assertError(await api.patch(`/api/v1/webhooks/${endpoint.id}`, { status: 'paused' }), 400, 'invalid_request', 'status');
    assertError(await api.get(`/api/v1/webhooks/${missingId('whk')}`), 404, 'not_found');
    assertError(await api.get(`/api/v1/webhooks/${endpoint.id}/deliveries/${missingId('dlv')}`), 404, 'not_found');
    assertError(await api.post(`/api/v1/webhooks/${endpoint.id}/deliveries/${missingId('dlv')}/replay`), 404, 'not_found');
    assertError(await api.get('/api/v1/webhooks/whk-1'), 400, 'invalid_request', 'id');
    assertError(await api.get('/api/v1/webhooks?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_cursor');
    assertError(await api.get(`/api/v1/webhooks/${endpoint.id}/deliveries?cursor=bm90LWEtY3Vyc29y`), 400, 'invalid_cursor');
    assertError(await api.get('/api/v1/webhooks?limit=-1'), 400, 'invalid_request', 'limit');
    assertError(
      await api.post('/api/v1/webhooks', { url: `${receiverUrl}/x`, description: 'x'.repeat(1_100_000) }, { timeoutMs: 10_000 }),
      413,
      'payload_too_large',
    );
  });
});
