import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEnv } from '@voice/kit';
import { operationsByService, type RpcDefinition } from '@voice/proto';
import { envSchema } from '../src/env.js';
import { upstreamRoutes } from '../src/proxy/upstreams.js';

test("every operation's REST route is proxied to the service that serves it", () => {
  const routes = upstreamRoutes(parseEnv(envSchema, { INTERNAL_SIGNING_SECRET: 'x'.repeat(32) }));
  const served = ['telephony', 'leads', 'recall', 'mcp', 'webhooks'] as const;
  let checked = 0;
  for (const service of served) {
    for (const operation of Object.values(operationsByService[service] as Record<string, RpcDefinition>)) {
      for (const route of operation.http) {
        const path = route.path.replace(/:(\w+)/g, 'x_1');
        const owner = routes.find((candidate) => path === candidate.prefix || path.startsWith(`${candidate.prefix}/`));
        assert.equal(owner?.service, service, `${route.method} ${route.path} (${operation.name})`);
        checked += 1;
      }
    }
  }
  assert.ok(checked >= 70, `${checked} routes`);
});
