import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type HttpApp, parseEnv } from '@voice/kit';
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
import type { EventEnvelope, WebhookDelivery, WebhookEndpointWithSecret } from '@voice/proto';
import { buildApp } from '../src/app.js';
import { connectDeps, type WebhooksDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';

// The service runs as a real process (src/main.ts) so it can be killed with SIGKILL mid-delivery; this
// test process only serves the API in-process (to create the endpoint) and publishes events.
const mainPath = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

let ctx: TestContext;
let env: Record<string, string>;
let deps: WebhooksDeps;
let app: HttpApp;
let target: Receiver;
const children: ChildProcess[] = [];

function startService(): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', mainPath], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

before(async () => {
  ctx = await createTestContext();
  env = {
    ...ctx.env,
    HOST: '127.0.0.1',
    PORT: '0',
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_RETRY_SCHEDULE_MS: '50,100',
    // A dead worker's deliveries and a dead replica's unacknowledged events come back after about a second.
    WEBHOOK_WORKER_LOCK_MS: '1000',
    WEBHOOK_FANOUT_ACK_WAIT_MS: '2000',
  };
  // API only: the deliveries are the spawned process's alone.
  deps = await connectDeps(parseEnv(envSchema, { ...env, WORKERS: 'none' }));
  app = await buildApp(deps);
  target = await startReceiver(() => 'hold');
});

after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await target?.close();
  await app?.close();
  await deps?.close();
  await ctx?.cleanup();
});

test('killing the service mid-delivery and starting it again delivers every event at least once', async () => {
  const identity = testIdentity();
  const url = '/api/v1/webhooks';
  const created = await app.inject({ method: 'POST', url, headers: gatewayHeaders(identity, 'POST', url), payload: { url: target.url } });
  assert.equal(created.statusCode, 201);
  const endpoint = created.json() as WebhookEndpointWithSecret;

  const first = startService();
  const events: EventEnvelope[] = [];
  for (let index = 0; index < 5; index++) {
    events.push(
      await deps.bus.publish('call.completed', identity.org_id, sampleEventData('call.completed', { call_id: `call_crashtest${index}` })),
    );
  }
  // Every delivery is in flight, held open by the receiver, when the process dies.
  await target.waitFor((requests) => new Set(requests.map((request) => request.headers['webhook-id'])).size === events.length);
  first.kill('SIGKILL');
  await once(first, 'exit');

  const answeredFrom = target.requests.length;
  target.setBehaviour(() => 200);
  // Published while no webhooks process runs at all: JetStream keeps them for the durable consumer.
  for (let index = 5; index < 8; index++) {
    events.push(
      await deps.bus.publish('call.completed', identity.org_id, sampleEventData('call.completed', { call_id: `call_crashtest${index}` })),
    );
  }

  const second = startService();
  const expected = new Set(events.map((event) => event.id));
  await target.waitFor((requests) => {
    const answered = new Set(requests.slice(answeredFrom).map((request) => request.headers['webhook-id']));
    return [...expected].every((id) => answered.has(id));
  }, 30_000);

  const log = await eventually('every delivery to succeed', async () => {
    const path = `/api/v1/webhooks/${endpoint.id}/deliveries?limit=100`;
    const response = await app.inject({ method: 'GET', url: path, headers: gatewayHeaders(identity, 'GET', path) });
    const page = response.json() as { data: WebhookDelivery[] };
    return page.data.length === events.length && page.data.every((delivery) => delivery.status === 'succeeded') ? page.data : undefined;
  });
  assert.deepEqual(new Set(log.map((delivery) => delivery.event_id)), expected);
  for (const request of target.requests.slice(answeredFrom)) assert.ok(expected.has(String(request.headers['webhook-id'])));

  second.kill('SIGTERM');
  const [code] = await once(second, 'exit');
  assert.equal(code, 0);
});
