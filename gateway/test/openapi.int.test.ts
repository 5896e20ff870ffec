import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import { buildApp as buildTelephony } from '../../services/telephony/src/app.js';
import { connectDeps as connectTelephony, type TelephonyDeps } from '../../services/telephony/src/deps.js';
import { envSchema as telephonyEnvSchema } from '../../services/telephony/src/env.js';
import { isPublicPath, requiredScope } from '../src/auth/scopes.js';
import { startGateway, type TestGateway } from './stack.js';

type Operation = { security?: unknown[]; 'x-scope'?: string; responses?: Record<string, unknown> };

describe('GET /api/v1/openapi.json', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let telephony: HttpApp;
  let telephonyDeps: TelephonyDeps;

  before(async () => {
    ctx = await createTestContext();
    telephonyDeps = await connectTelephony(parseEnv(telephonyEnvSchema, ctx.env));
    telephony = await buildTelephony(telephonyDeps);
    await telephony.listen({ host: '127.0.0.1', port: 0 });
    gateway = await startGateway(ctx, { TELEPHONY_URL: `http://127.0.0.1:${(telephony.server.address() as AddressInfo).port}` });
  });
  after(async () => {
    await gateway.close();
    await telephony.close();
    await telephonyDeps.close();
    await ctx.cleanup();
  });

  test('is public, OpenAPI 3.1, valid under an independent validator, and merges the services with the gateway', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    const result = await validate(structuredClone(document));
    assert.equal(result.valid, true, result.valid ? '' : compileErrors(result));
    assert.ok(document.paths['/api/v1/phone/calls']?.get, 'telephony routes are there');
    assert.ok(document.paths['/api/v1/usage']?.get, "the gateway's own routes are there");
    assert.deepEqual(document.components.securitySchemes.apiKey, {
      type: 'http',
      scheme: 'bearer',
      description: 'Authorization: Bearer <API key>',
    });
    assert.ok(document.components.schemas.Error, 'the error envelope is described');
  });

  test("every operation carries security, the scope the gateway enforces, and the error envelope; it matches the route's declared scope", async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const telephonyDocument = (await telephony.inject({ method: 'GET', url: '/openapi.json' })).json() as typeof document;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (isPublicPath(path)) {
          assert.deepEqual(operation.security, [], `${method} ${path} is public`);
          continue;
        }
        assert.deepEqual(operation.security, [{ apiKey: [] }], `${method} ${path}`);
        assert.equal(operation['x-scope'], requiredScope(method.toUpperCase(), path));
        assert.ok(operation.responses?.['401'] && operation.responses['429'], `${method} ${path} documents its errors`);
      }
    }
    // Each service route declares its scope (route config → `x-scope`); the gateway's rule must agree.
    let checked = 0;
    for (const [path, item] of Object.entries(telephonyDocument.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!path.startsWith('/api/v1/') || isPublicPath(path)) continue;
        assert.equal(
          operation['x-scope'],
          requiredScope(method.toUpperCase(), path),
          `${method} ${path} declares the scope the gateway enforces`,
        );
        checked++;
      }
    }
    assert.ok(checked >= 2);
  });
});
