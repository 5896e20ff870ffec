// With no OTEL_* variable, tracing is off and costs nothing: OpenTelemetry is never loaded (only tracing.ts
// imports it, and only startTracing imports that, when the variables ask), and every hook stays out of the way.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/', import.meta.url));
for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];

const { startTracing } = await import('../src/tracing-start.js');
const tracing = await startTracing('off');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('tracing off', () => {
  test('no OTEL_* variable: startTracing starts nothing', () => {
    assert.equal(tracing, undefined);
  });

  test('only tracing.ts imports OpenTelemetry at run time (elsewhere: types only)', () => {
    const runtimeImport = /^import\s+(?!type\b)[^;]*?from\s+'(@opentelemetry\/[^']+|@fastify\/otel|bullmq-otel)'/gm;
    const importers = sourceFiles(source)
      .filter((file) => [...readFileSync(file, 'utf8').matchAll(runtimeImport)].length > 0)
      .map((file) => relative(source, file));
    assert.deepEqual(importers, ['tracing.ts']);
  });

  test('the hooks do nothing: no log mixin, no BullMQ telemetry, no fastify plugin, no stored context, no span', async () => {
    const { loggerOptions, createLogger } = await import('../src/logger.js');
    const { bullmqOptions } = await import('../src/redis.js');
    const { createHttpApp } = await import('../src/http.js');
    const { inSpan, storedTraceContext, traceLogFields } = await import('../src/trace.js');
    assert.equal(loggerOptions('x', 'info').mixin, undefined);
    const options = bullmqOptions({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_MODE: 'single', REDIS_PREFIX: 'off:' });
    assert.equal('telemetry' in options, false);
    const app = await createHttpApp({ name: 'off', logger: createLogger('off', 'silent'), readiness: {}, traceIdHeader: true });
    await app.ready();
    assert.equal(app.hasPlugin('@fastify/otel'), false);
    const answer = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(answer.headers['trace-id'], undefined);
    await app.close();
    assert.equal(storedTraceContext(), null);
    assert.deepEqual(traceLogFields(), {});
    assert.equal(await inSpan('nothing', {}, async (span) => span), undefined);
  });
});
