import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP receiver got it, flattened: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  /** The exporting process's `service.name`. */
  service: string;
  /** The instrumentation scope that made it (`@fastify/otel`, `bullmq`, `@voice/kit`…). */
  scope: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        links?: Array<{ traceId: string; spanId: string }>;
      }>;
    }>;
  }>;
}

const plain = (value: AnyValue): unknown =>
  value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue;

const attributesOf = (list: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

/**
 * A local OpenTelemetry collector's trace endpoint: `POST /v1/traces` in OTLP/HTTP's JSON encoding (the
 * exporter's `http/json` protocol), answered as a collector does. Point a process at it with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=<url>` and `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`. A body in another
 * encoding is refused (415) and counted in `refused`, so a test notices an exporter it did not expect.
 */
export async function startOtlpReceiver(): Promise<{
  url: string;
  spans: ReceivedSpan[];
  /** The headers of each export request. */
  requests: IncomingHttpHeaders[];
  refused: number;
  close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const requests: IncomingHttpHeaders[] = [];
  const state = { refused: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !request.headers['content-type']?.startsWith('application/json')) {
        state.refused++;
        response.writeHead(415).end();
        return;
      }
      requests.push(request.headers);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
              service,
              scope: scopeSpans.scope?.name ?? '',
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    get refused() {
      return state.refused;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}

/** The spans of one trace, and helpers to walk it: a span's parent, whether one span descends from another. */
export function traceOf(spans: readonly ReceivedSpan[], traceId: string) {
  const own = spans.filter((span) => span.traceId === traceId);
  const byId = new Map(own.map((span) => [span.spanId, span]));
  return {
    spans: own,
    find: (predicate: (span: ReceivedSpan) => boolean) => own.find(predicate),
    /** Whether `descendant` is below `ancestor` through parents in this trace. */
    descends(descendant: ReceivedSpan, ancestor: ReceivedSpan): boolean {
      for (let at: ReceivedSpan | undefined = descendant; at; at = byId.get(at.parentSpanId)) {
        if (at.parentSpanId === ancestor.spanId) return true;
      }
      return false;
    },
  };
}
