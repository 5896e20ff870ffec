import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';

// There is no Docker engine on the CI machines, so the compose file is checked by reading it: every
// deployable is there, built from the one Dockerfile, with the backing services' URLs and a health check.
const root = new URL('../../', import.meta.url);
const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      build?: { context: string; args?: Record<string, string> };
      environment?: Record<string, string>;
      healthcheck?: { test: string[] };
      ports?: string[];
      depends_on?: Record<string, { condition: string }>;
      command?: string[];
    }
  >;
};

const deployables = {
  gateway: { port: '8080' },
  telephony: { port: '8081' },
  leads: { port: '8082' },
  recall: { port: '8083' },
  mcp: { port: '8084' },
  webhooks: { port: '8085' },
  console: { port: '8086' },
};

describe('docker-compose.yml', () => {
  test('runs Postgres, Redis and NATS with JetStream, each with a health check', () => {
    for (const name of ['postgres', 'redis', 'nats']) assert.ok(compose.services[name]?.healthcheck, name);
    assert.ok(compose.services.nats?.command?.includes('-js'), 'NATS runs with JetStream');
  });

  for (const [name, expected] of Object.entries(deployables)) {
    test(`${name}: built from the Dockerfile, with env, port, health check, and waiting for migrations`, () => {
      const service = compose.services[name];
      assert.ok(service, `${name} is in the compose file`);
      assert.deepEqual(service.build, { context: '.', args: { SERVICE: name, PORT: expected.port } });
      assert.ok(existsSync(new URL('Dockerfile', root)), 'Dockerfile exists');
      for (const variable of ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'INTERNAL_SIGNING_SECRET']) {
        assert.ok(service.environment?.[variable], `${name} has ${variable}`);
      }
      assert.equal(service.environment?.PORT, expected.port);
      assert.ok(service.healthcheck?.test.join(' ').includes(`${expected.port}/healthz`), `${name} health check probes /healthz`);
      assert.equal(service.depends_on?.migrate?.condition, 'service_completed_successfully');
      const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
      assert.match(dockerfile, /AS build[\s\S]*AS runtime/, 'multi-stage');
      assert.match(dockerfile, /--omit=dev/, 'production dependencies only');
      assert.match(dockerfile, /^USER node$/m, 'non-root');
    });
  }

  test('the gateway is published on 8080 and knows every service', () => {
    const gateway = compose.services.gateway;
    assert.deepEqual(gateway?.ports, ['8080:8080']);
    for (const service of ['TELEPHONY', 'LEADS', 'RECALL', 'MCP', 'WEBHOOKS', 'CONSOLE'])
      assert.ok(gateway?.environment?.[`${service}_URL`]);
  });
});
