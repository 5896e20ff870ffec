// Tracing in kit: the NATS carrier (request/reply and JetStream events), the outbox row that keeps its writer's
// trace, and the trace ids on log lines, exported over OTLP/HTTP to a local receiver. Tracing is per process,
// and this file is one process: it starts tracing before it loads the code under test.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { headers } from '@nats-io/nats-core';
import { defineRpc, type EventEnvelope } from '@voice/proto';
import { z } from 'zod';
import type { Bus as BusType } from '../src/nats.js';
import { startOtlpReceiver, traceOf } from '../src/testing/otlp-receiver.js';
import { startTracing, tracingWanted } from '../src/tracing-start.js';

const receiver = await startOtlpReceiver();
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
const tracing = await startTracing('kit-test');
assert.ok(tracing, 'an OTLP endpoint starts tracing');

const { pino } = await import('pino');
const pg = (await import('pg')).default;
const { loggerOptions, createLogger } = await import('../src/logger.js');
const { Bus } = await import('../src/nats.js');
const { commitWithEvents, OutboxRelay } = await import('../src/outbox.js');
const { schemaPoolConfig } = await import('../src/prisma.js');
const { inSpan, natsHeaderGetter, natsHeaderSetter, spanKind } = await import('../src/trace.js');
const { createTestDatabase, eventually, sampleEventData, testServerUrls, testSigningSecret, testIdentity } = await import(
  '../src/testing/index.js'
);

const echo = defineRpc('svc.test.echo', z.object({ text: z.string() }), z.object({ text: z.string() }), 'read');
const logger = createLogger('test', 'silent');

/** Every span exported so far, once the processor has sent what it holds. */
async function exported() {
  await tracing?.flush();
  return receiver.spans;
}

describe('tracing', () => {
  const namespace = `t${randomBytes(5).toString('hex')}`;
  let caller: BusType;
  let responder: BusType;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;

  before(async () => {
    const options = { url: testServerUrls.nats, namespace, logger, secret: testSigningSecret };
    caller = await Bus.connect({ ...options, name: 'caller' });
    responder = await Bus.connect({ ...options, name: 'responder' });
    database = await createTestDatabase();
  });
  after(async () => {
    await caller?.deleteStream();
    await caller?.drain();
    await responder?.drain();
    await database?.drop();
    await tracing?.shutdown();
    await receiver.close();
  });

  test('the variables decide: nothing set, disabled, or exporter none is off; an endpoint or an exporter is on', () => {
    assert.equal(tracingWanted({}), false);
    assert.equal(tracingWanted({ OTEL_SERVICE_NAME: 'x' }), false, 'naming the service alone exports nothing');
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
    assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  });

  test('the carrier writes traceparent and tracestate into NATS headers and reads them back', () => {
    const { api } = tracing as NonNullable<typeof tracing>;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const incoming = api.propagation.extract(api.ROOT_CONTEXT, { traceparent, tracestate: 'vendor=1' });
    const natsHeaders = headers();
    api.propagation.inject(incoming, natsHeaders, natsHeaderSetter);
    assert.equal(natsHeaders.get('traceparent'), traceparent);
    assert.equal(natsHeaders.get('tracestate'), 'vendor=1');
    const read = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, natsHeaders, natsHeaderGetter));
    assert.equal(read?.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(read?.spanId, 'b7ad6b7169203331');
    assert.equal(read?.isRemote, true);
    assert.equal(api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, headers(), natsHeaderGetter)), undefined);
  });

  test('a request continues the caller’s trace in the responder, and their log lines name their spans', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const traced = pino(loggerOptions('responder', 'info'), sink);
    responder.serve(echo, async (input) => {
      traced.info('answering');
      return { text: input.text };
    });
    const traceId = await inSpan('caller work', { kind: spanKind.internal }, async (span) => {
      traced.info('calling');
      assert.deepEqual(await caller.call(echo, testIdentity(), { text: 'hi' }), { text: 'hi' });
      return span?.spanContext().traceId as string;
    });
    const trace = await eventually('the request’s spans', async () => {
      const found = traceOf(await exported(), traceId);
      return found.find((span) => span.name === 'process svc.test.echo') && found;
    });
    const root = trace.find((span) => span.name === 'caller work');
    const send = trace.find((span) => span.name === 'send svc.test.echo');
    const serve = trace.find((span) => span.name === 'process svc.test.echo');
    assert.ok(root && send && serve, JSON.stringify(trace.spans.map((span) => span.name)));
    assert.equal(send.parentSpanId, root.spanId);
    assert.equal(send.kind, 3, 'client');
    assert.equal(serve.parentSpanId, send.spanId, 'the responder continues from the request’s headers');
    assert.equal(serve.kind, 2, 'server');
    assert.equal(serve.attributes['messaging.system'], 'nats');
    assert.equal(serve.attributes['voice.service'], 'responder');
    assert.deepEqual(
      lines.map(({ msg, trace_id, span_id }) => ({ msg, trace_id, span_id })),
      [
        { msg: 'calling', trace_id: traceId, span_id: root.spanId },
        { msg: 'answering', trace_id: traceId, span_id: serve.spanId },
      ],
    );
  });

  test('an outbox row keeps its writer’s trace: the relay’s publish and the consumer continue it', async (t) => {
    const pool = new pg.Pool(schemaPoolConfig(database.url, 'leads', { maxConnections: 2 }));
    const relay = new OutboxRelay({ bus: caller, logger, databaseUrl: database.url, schema: 'leads', pollMs: 100 });
    const consumed: EventEnvelope[] = [];
    const consumer = await responder.consume({ durable: 'traced', types: ['lead.updated'] }, async (event) => {
      consumed.push(event);
    });
    t.after(async () => {
      await consumer.close();
      await relay.close();
      await pool.end();
    });
    // Written in a span, published by a relay started afterwards outside any: only the row links the two.
    const { traceId, written } = await inSpan('writer', {}, async (span) => {
      let event: EventEnvelope | undefined;
      await commitWithEvents(
        async (work) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const value = await work({ $executeRawUnsafe: async (query, ...values) => (await client.query(query, values)).rowCount ?? 0 });
            await client.query('COMMIT');
            return value;
          } finally {
            client.release();
          }
        },
        undefined,
        async (_tx, events) => {
          event = events.add('lead.updated', 'org_test', sampleEventData('lead.updated', {}));
        },
      );
      return { traceId: span?.spanContext().traceId as string, written: event as EventEnvelope };
    });
    const { rows } = await pool.query<{ trace_context: string }>('SELECT trace_context FROM outbox_events WHERE event_id = $1', [
      written.id,
    ]);
    assert.match(JSON.parse(rows[0]?.trace_context ?? '{}').traceparent, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    relay.start();
    await eventually('the event consumed', () => consumed.some((event) => event.id === written.id));
    const trace = await eventually('the event’s spans', async () => {
      const found = traceOf(await exported(), traceId);
      return found.find((span) => span.name === 'process evt.lead.updated') && found;
    });
    const writer = trace.find((span) => span.name === 'writer');
    const publish = trace.find((span) => span.name === 'publish evt.lead.updated');
    const processed = trace.find((span) => span.name === 'process evt.lead.updated');
    assert.ok(writer && publish && processed, JSON.stringify(trace.spans.map((span) => span.name)));
    assert.equal(publish.parentSpanId, writer.spanId, 'the relay publishes in the writer’s trace');
    assert.equal(publish.kind, 4, 'producer');
    assert.equal(publish.attributes['messaging.message.id'], written.id);
    assert.equal(processed.parentSpanId, publish.spanId, 'the consumer continues from the message’s headers');
    assert.equal(processed.kind, 5, 'consumer');
    assert.equal(processed.attributes['messaging.consumer.group.name'], 'traced');
    assert.ok(
      trace.spans.some((span) => span.scope.includes('pg') && trace.descends(span, writer)),
      'pg is instrumented: the writer’s statements are in its trace',
    );
  });

  test('exported over OTLP/HTTP in JSON, with the deployable as service.name', async () => {
    const spans = await exported();
    assert.equal(receiver.refused, 0);
    assert.ok(spans.length > 0);
    assert.ok(spans.every((span) => span.service === 'kit-test'));
  });
});
