// Tracing across the platform, exported over OTLP/HTTP to a local receiver: a lead created through the gateway
// is one trace from the gateway to the webhook delivery, and so is an MCP tool call that crosses to leads over
// NATS. The whole platform runs in this process, which starts tracing before it loads any of it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type ReceivedSpan, startOtlpReceiver, traceOf } from '../../packages/kit/src/testing/otlp-receiver.js';
import { startTracing } from '../../packages/kit/src/tracing-start.js';

const otlp = await startOtlpReceiver();
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = otlp.url;
process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
const tracing = await startTracing('platform');
assert.ok(tracing);

const { client, ok, startPlatform } = await import('./support/harness.js');
const { eventually, startReceiver } = await import('@voice/kit/testing');

const spanKinds = { server: 2, client: 3, producer: 4, consumer: 5 };

/** Waits until the trace has a span `wanted` names, and returns the trace. */
async function traceWith(traceId: string, what: string, wanted: (span: ReceivedSpan) => boolean) {
  return eventually(
    `the trace's ${what} span`,
    async () => {
      await tracing?.flush();
      const trace = traceOf(otlp.spans, traceId);
      return trace.find(wanted) && trace;
    },
    { timeoutMs: 60_000 },
  );
}

const names = (spans: readonly ReceivedSpan[]) =>
  JSON.stringify(spans.map((span) => `${span.attributes['voice.service'] ?? span.scope}: ${span.name}`));

describe('tracing through the platform', () => {
  let platform: Awaited<ReturnType<typeof startPlatform<'leads' | 'mcp' | 'webhooks'>>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let api: ReturnType<typeof client>;
  let key: string;

  before(async () => {
    receiver = await startReceiver();
    platform = await startPlatform({ services: ['leads', 'mcp', 'webhooks'] });
    ({ key } = await platform.org());
    api = client(platform.url, key);
    ok(await api.post('/api/v1/webhooks', { url: receiver.url, event_types: ['lead.created'] }), 201);
  });
  after(async () => {
    await platform?.close();
    await receiver?.close();
    await tracing?.shutdown();
    await otlp.close();
  });

  test('a lead created through the gateway is one trace: gateway, leads, outbox relay, fan-out, BullMQ job, delivery', async () => {
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const created = await api.post(
      '/api/v1/leads',
      { name: 'Traced lead' },
      { headers: { traceparent: `00-${traceId}-${clientSpanId}-01`, tracestate: 'client=1' } },
    );
    const lead = ok(created, 201);
    assert.equal(created.headers.get('trace-id'), traceId, "the gateway continues the client's trace and names it");
    assert.ok(created.headers.get('request-id'));

    const [delivery] = (await receiver.waitFor((requests) => requests.some((request) => request.body.includes(lead.id)))).filter(
      (request) => request.body.includes(lead.id),
    );
    // An outgoing webhook leaves the platform: it carries none of our trace (services/webhooks/src/delivery/worker.ts).
    for (const name of ['traceparent', 'tracestate', 'baggage']) assert.equal(delivery?.headers[name], undefined, name);

    // The job's span ends after the delivery's, when its processor has returned.
    const trace = await traceWith(traceId, 'delivery job', (span) => span.scope === 'bullmq' && span.kind === spanKinds.consumer);
    const spans = trace.spans;
    const one = (what: string, predicate: (span: ReceivedSpan) => boolean) => {
      const found = spans.filter(predicate);
      assert.equal(found.length, 1, `${what} in ${names(spans)}`);
      return found[0] as ReceivedSpan;
    };
    const gateway = one(
      'the gateway’s request',
      (span) => span.attributes['voice.service'] === 'gateway' && span.kind === spanKinds.server,
    );
    assert.equal(gateway.parentSpanId, clientSpanId, "the gateway's span is the client's span's child");
    assert.equal(gateway.name, 'POST /api/v1/leads');
    const proxied = one('the proxied request', (span) => span.scope.includes('undici'));
    assert.equal(proxied.kind, spanKinds.client);
    const leads = one(
      'the leads service’s request',
      (span) => span.attributes['voice.service'] === 'leads' && span.kind === spanKinds.server,
    );
    assert.equal(leads.parentSpanId, proxied.spanId, 'the service continues from the traceparent the proxy sent');
    assert.equal(leads.name, 'POST /api/v1/leads');
    assert.ok(
      spans.some((span) => span.scope.includes('pg') && trace.descends(span, leads)),
      "the lead's insert (pg) is in the trace",
    );
    const publish = one('the outbox relay’s publish', (span) => span.name === 'publish evt.lead.created');
    assert.equal(publish.kind, spanKinds.producer);
    assert.equal(publish.attributes['voice.service'], 'leads');
    assert.ok(trace.descends(publish, leads), 'the relay publishes in the trace of the request that wrote the row');
    const fanout = one('the webhooks fan-out', (span) => span.attributes['messaging.consumer.group.name'] === 'webhooks-fanout');
    assert.equal(fanout.parentSpanId, publish.spanId);
    assert.equal(fanout.kind, spanKinds.consumer);
    const queued = spans.filter((span) => span.scope === 'bullmq' && span.kind === spanKinds.producer);
    assert.ok(
      queued.length > 0 && queued.every((span) => trace.descends(span, fanout)),
      `the job is added in the fan-out: ${names(spans)}`,
    );
    const job = one('the delivery job', (span) => span.scope === 'bullmq' && span.kind === spanKinds.consumer);
    assert.ok(trace.descends(job, fanout), 'the job runs in the trace of the fan-out that queued it');
    const post = one('the delivery', (span) => span.name === 'webhook POST');
    assert.equal(post.kind, spanKinds.client);
    assert.equal(post.attributes['http.response.status_code'], 200);
    assert.ok(trace.descends(post, job));
    assert.ok(trace.descends(post, gateway), 'one trace from the gateway to the delivery');
    assert.ok(
      spans.some((span) => span.scope.includes('ioredis')),
      'ioredis is instrumented (the idempotency and queue commands of the request are in the trace)',
    );
    assert.ok(spans.every((span) => span.service === 'platform'));
  });

  test("a client's unsampled trace stays unsampled in every service: nothing of it is exported", async () => {
    const traceId = randomBytes(16).toString('hex');
    const missing = `lead_${randomBytes(10).toString('hex')}`;
    const unsampled = await api.get(`/api/v1/leads/${missing}`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00` },
    });
    assert.equal(unsampled.status, 404);
    assert.equal(unsampled.headers.get('trace-id'), traceId, 'the trace id answers even when the trace is not kept');
    // Spans are exported in the order they end: once a later request's leads span is in, the first one's would be.
    const later = await api.get('/api/v1/leads');
    await traceWith(later.headers.get('trace-id') as string, 'later leads', (span) => span.attributes['voice.service'] === 'leads');
    assert.deepEqual(
      otlp.spans.filter((span) => span.traceId === traceId || String(span.attributes['url.path'] ?? '').includes(missing)),
      [],
      'the leads service followed the decision the traceparent carried (had it got none, it would have started a trace of its own)',
    );
  });

  test("an audit batch's publish links to the requests it records (one span, several causes)", async () => {
    const listed = await api.get('/api/v1/leads');
    ok(listed);
    const traceId = listed.headers.get('trace-id') as string;
    const request = (await traceWith(traceId, 'gateway', (span) => span.attributes['voice.service'] === 'gateway')).find(
      (span) => span.attributes['voice.service'] === 'gateway' && span.kind === spanKinds.server,
    );
    assert.ok(request);
    const publish = await eventually(
      'the audit publish linking to the request',
      async () => {
        await tracing?.flush();
        return otlp.spans.find(
          (span) => span.name === 'publish evt.api.called' && span.links.some((link) => link.spanId === request.spanId),
        );
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(publish.kind, spanKinds.producer);
    assert.notEqual(publish.traceId, traceId, 'a trace of its own, linked to each request it carries');
  });

  test('an MCP tools/call through the gateway reaches leads over NATS in the same trace', async () => {
    const response = await fetch(`${platform.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'service_list_leads', arguments: {} } }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.doesNotMatch(text, /"isError":true/, text);
    const traceId = response.headers.get('trace-id');
    assert.match(traceId ?? '', /^[0-9a-f]{32}$/, 'the gateway starts a trace when the client sends none');
    const trace = await traceWith(traceId as string, 'leads', (span) => span.name === 'process svc.leads.leads.list');
    const spans = trace.spans;
    const find = (what: string, predicate: (span: ReceivedSpan) => boolean) => {
      const found = spans.find(predicate);
      assert.ok(found, `${what} in ${names(spans)}`);
      return found;
    };
    const gateway = find(
      'the gateway’s request',
      (span) => span.attributes['voice.service'] === 'gateway' && span.kind === spanKinds.server,
    );
    assert.equal(gateway.parentSpanId, '', 'a new trace begins at the gateway');
    const mcp = find('the mcp service’s request', (span) => span.attributes['voice.service'] === 'mcp' && span.kind === spanKinds.server);
    const send = find('the NATS request', (span) => span.name === 'send svc.leads.leads.list');
    assert.equal(send.kind, spanKinds.client);
    assert.equal(send.attributes['voice.service'], 'mcp');
    const served = find('the leads service’s answer', (span) => span.name === 'process svc.leads.leads.list');
    assert.equal(served.kind, spanKinds.server);
    assert.equal(served.attributes['voice.service'], 'leads');
    assert.equal(served.parentSpanId, send.spanId, 'leads continues from the request’s NATS headers');
    assert.ok(trace.descends(send, mcp) && trace.descends(mcp, gateway), 'gateway → mcp → leads');
  });
});
