import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { HttpApp } from '@voice/kit';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isPublicPath, requiredScope } from '../src/auth/scopes.js';
import { bearerDescription } from '../src/routes/openapi.js';
import { type Platform, startPlatform } from './support/harness.js';

type Operation = {
  operationId?: string;
  security?: unknown[];
  'x-scope'?: string;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses?: Record<string, unknown>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

describe('GET /api/v1/openapi.json', () => {
  let platform: Platform;
  let document: Document;

  before(async () => {
    platform = await startPlatform();
    const response = await fetch(`${platform.url}/api/v1/openapi.json`);
    assert.equal(response.status, 200);
    document = (await response.json()) as Document;
  });
  after(async () => {
    await platform.close();
  });

  test('is public, OpenAPI 3.1, and valid under an independent validator', async () => {
    assert.equal((document as unknown as { openapi: string }).openapi, '3.1.0');
    const result = await validate(structuredClone(document) as never);
    assert.equal(result.valid, true, result.valid ? '' : compileErrors(result));
    assert.deepEqual(document.components.securitySchemes.apiKey, {
      type: 'http',
      scheme: 'bearer',
      description: bearerDescription,
    });
    assert.match(bearerDescription, /Bearer <API key \(vk_live_…\)>. The REST API takes API keys only/);
    assert.ok(document.components.schemas.Error, 'the error envelope is described');
  });

  test('merges every service with the gateway', () => {
    for (const path of [
      '/api/v1/phone/calls',
      '/api/v1/phone/sms',
      '/api/v1/phone/dnc',
      '/api/v1/leads',
      '/api/v1/themes',
      '/api/v1/workspaces',
      '/api/v1/sequences',
      '/api/v1/invoices',
      '/api/v1/projects',
      '/api/v1/knowledge/documents',
      '/api/v1/llm-recall',
      '/api/v1/marketing-audit',
      '/api/public/marketing-audit',
      '/api/v1/approvals',
      '/api/v1/webhooks',
      '/api/v1/usage',
      '/api/v1/audit-log',
    ]) {
      assert.ok(document.paths[path], `${path} is documented`);
    }
  });

  test('every operation carries security, the scope the gateway enforces, and the error envelope', () => {
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
  });

  test("every success answer documents the gateway's Request-Id and, beside it, Trace-Id", () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (!status.startsWith('2')) continue;
          const headers = (response as { headers?: Record<string, { schema?: { pattern?: string } }> }).headers ?? {};
          assert.ok(headers['Request-Id'], `${method} ${path} ${status}: Request-Id`);
          assert.equal(headers['Trace-Id']?.schema?.pattern, '^[0-9a-f]{32}$', `${method} ${path} ${status}: Trace-Id`);
        }
      }
    }
  });

  test('every operation has a unique operationId, named after its operation', () => {
    const seen = new Map<string, string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${where} has an operationId`);
        assert.equal(
          seen.get(operation.operationId as string),
          undefined,
          `${where} and ${seen.get(operation.operationId as string)} share one`,
        );
        seen.set(operation.operationId as string, where);
      }
    }
    assert.equal(document.paths['/api/v1/phone/calls']?.get?.operationId, 'listCalls');
    assert.equal(document.paths['/api/v1/leads']?.post?.operationId, 'createLead');
  });

  test('every component schema is referenced, from an operation or another referenced schema', () => {
    const text = JSON.stringify(document);
    for (const name of Object.keys(document.components.schemas)) {
      assert.ok(text.includes(`"#/components/schemas/${name}"`), `${name} is referenced`);
    }
    // And every reference has its component (the document is valid, which already says so; kept explicit).
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(document.components.schemas[name as string], `${name} exists`);
    }
  });

  test('the recall body is either {query} or {brand, url} by the schema, as at runtime', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'openapi.json', components: document.components });
    const body = document.paths['/api/v1/llm-recall']?.post?.requestBody?.content['application/json']?.schema as { $ref: string };
    const valid = ajv.compile({ $ref: `openapi.json${body.$ref}` });
    assert.equal(valid({ query: 'opening hours' }), true);
    assert.equal(valid({ query: 'opening hours', limit: 3 }), true);
    assert.equal(valid({ brand: 'Acme', url: 'https://acme.example' }), true);
    assert.equal(valid({}), false, '{} is refused');
    assert.equal(valid({ query: 'x', brand: 'Acme' }), false, 'a mix is refused');
    assert.equal(valid({ brand: 'Acme' }), false, 'brand without url is refused');
    assert.equal(valid({ brand: 'Acme', url: 'https://acme.example', limit: 2 }), false, 'limit is for {query} only');
  });

  test('a request field with a default is optional in the schema a request is sent by', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'openapi.json', components: document.components });
    const body = document.paths['/api/v1/phone/dnc']?.post?.requestBody?.content['application/json']?.schema as { $ref: string };
    assert.equal(ajv.validate({ $ref: `openapi.json${body.$ref}` }, { phone: '+14155550123' }), true, 'channel defaults to all');
  });

  test('an endpoint subscribes by the schema only to the event types the API accepts', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'openapi.json', components: document.components });
    const body = document.paths['/api/v1/webhooks']?.post?.requestBody?.content['application/json']?.schema as { $ref: string };
    const valid = ajv.compile({ $ref: `openapi.json${body.$ref}` });
    const endpoint = (eventTypes: string[]) => ({ url: 'https://hooks.example/voice', event_types: eventTypes });
    assert.equal(valid(endpoint(['*'])), true);
    assert.equal(valid(endpoint(['call.completed', 'lead.created'])), true);
    for (const refused of ['webhook.test', 'api.called', 'org.plan_changed', 'call.nope'])
      assert.equal(valid(endpoint([refused])), false, `${refused} is refused, as at runtime`);
  });

  test("each service route's declared scope is the one the gateway enforces, and the public document (built from the definitions) describes it", async () => {
    const services: Array<[string, HttpApp]> = [
      ['telephony', platform.telephony.app],
      ['leads', platform.leads.app],
      ['recall', platform.recall.app],
      ['mcp', platform.mcp.app],
      ['webhooks', platform.webhooks.app],
    ];
    for (const [name, app] of services) {
      const own = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
      let checked = 0;
      for (const [path, item] of Object.entries(own.paths)) {
        if (!path.startsWith('/api/')) continue;
        for (const [method, operation] of Object.entries(item)) {
          assert.equal(
            document.paths[path]?.[method]?.operationId,
            operation.operationId,
            `${name}: ${method} ${path} is in the public document`,
          );
        }
        if (isPublicPath(path)) continue;
        for (const [method, operation] of Object.entries(item)) {
          assert.equal(
            operation['x-scope'],
            requiredScope(method.toUpperCase(), path),
            `${name}: ${method} ${path} declares the scope the gateway enforces`,
          );
          checked++;
        }
      }
      assert.ok(checked > 0, `${name} declares scopes`);
    }
  });
});
