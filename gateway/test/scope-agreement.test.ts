import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHttpApp, createLogger, type HttpApp, serviceAuthPlugin } from '@voice/kit';
import { testSigningSecret } from '@voice/kit/testing';
import { telephonyRpc } from '@voice/proto';
import { describeDisagreement, scopeDisagreements } from '../src/auth/scope-agreement.js';
import { ScopeAgreement } from '../src/auth/scope-watch.js';
import type { GatewayEnv } from '../src/env.js';

const logger = createLogger('test', 'silent');

/**
 * A telephony service whose routes name operations whose scopes the gateway's method/path rule does not
 * give: a POST that only reads, and a GET that writes. One route agrees, to show it is not reported.
 */
async function disagreeingService(): Promise<HttpApp> {
  const app = await createHttpApp({ name: 'telephony', logger, readiness: {} });
  await app.register(serviceAuthPlugin, { secret: testSigningSecret });
  app.post('/api/v1/phone/dnc/lookup', { config: { operation: telephonyRpc.checkDnc } }, async () => ({}));
  app.get('/api/v1/phone/calls/redial', { config: { operation: telephonyRpc.queueCall } }, async () => ({}));
  app.get('/api/v1/phone/calls', { config: { operation: telephonyRpc.listCalls } }, async () => ({}));
  return app;
}

describe("the gateway's scope rule is checked against the services' declared scopes", () => {
  let service: HttpApp;
  let gateway: HttpApp;
  let env: GatewayEnv;

  before(async () => {
    service = await disagreeingService();
    const address = await service.listen({ host: '127.0.0.1', port: 0 });
    // Only the telephony service is up: the others are missing from the comparison, not an error.
    const down = 'http://127.0.0.1:1';
    env = { TELEPHONY_URL: address, LEADS_URL: down, RECALL_URL: down, MCP_URL: down, WEBHOOKS_URL: down } as GatewayEnv;
    gateway = await createHttpApp({ name: 'gateway', logger, readiness: {} });
    await gateway.ready();
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  test("a route's x-scope comes from its operation, and a disagreement names method, path, both scopes", async () => {
    const document = (await service.inject({ method: 'GET', url: '/openapi.json' })).json();
    const found = scopeDisagreements('telephony', document).map(describeDisagreement).sort();
    assert.deepEqual(found, [
      "GET /api/v1/phone/calls/redial: telephony declares scope read-write, the gateway's rule (requiredScope) enforces read",
      "POST /api/v1/phone/dnc/lookup: telephony declares scope read, the gateway's rule (requiredScope) enforces read-write",
    ]);
  });

  test('the check the gateway runs from start fails readiness with that message; absent services do not', async () => {
    const agreement = new ScopeAgreement(env, logger);
    await agreement.readiness();
    const disagreements = await agreement.verify(gateway);
    assert.equal(disagreements.length, 2);
    await assert.rejects(agreement.readiness(), /POST \/api\/v1\/phone\/dnc\/lookup: telephony declares scope read, the gateway's rule/);
  });

  test('a route may not name an operation and restate a scope', async () => {
    const app = await createHttpApp({ name: 'telephony', logger, readiness: {} });
    await app.register(serviceAuthPlugin, { secret: testSigningSecret });
    assert.throws(
      () => app.post('/api/v1/phone/dnc', { config: { operation: telephonyRpc.addDnc, scope: 'read-write' } }, async () => ({})),
      /POST \/api\/v1\/phone\/dnc names operation svc\.telephony\.dnc\.add; drop its config\.scope/,
    );
    await app.close();
  });
});
