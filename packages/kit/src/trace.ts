// What the rest of kit asks of tracing. Only types come from OpenTelemetry here: with tracing off (no OTEL_*
// variable, `startTracing` in ./tracing-start.ts) nothing of it is loaded, and every helper below is one
// `undefined` check on the request path. `./tracing.ts` fills `active` when tracing starts.

import type { MsgHdrs } from '@nats-io/nats-core';
import type * as otel from '@opentelemetry/api';
import type { Context, Link, Span, SpanContext, SpanKind, TextMapGetter, TextMapSetter, Tracer } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import type { FastifyPluginCallback } from 'fastify';

/** Tracing as started in this process: the API, the platform's tracer and what the instrumented parts need. */
export interface ActiveTracing {
  readonly api: typeof otel;
  readonly tracer: Tracer;
  /** BullMQ's `telemetry` option (bullmq-otel) for every Queue and Worker: jobs carry their adder's context. */
  readonly bullmq: Telemetry;
  /** @fastify/otel for one deployable's app: a server span per request, continuing an incoming `traceparent`. */
  fastifyPlugin(service: string): FastifyPluginCallback;
  /**
   * Outgoing HTTP (undici, fetch) is traced, and carries `traceparent`, only to these origins: the platform's own
   * services. A third party (an LLM provider, Twilio, a chat API) gets neither our trace ids nor a span.
   */
  readonly propagateTo: Set<string>;
  /** Exports every finished span now (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: ActiveTracing | undefined;

export function activeTracing(): ActiveTracing | undefined {
  return active;
}

/** Set once by startTracing (and cleared by its shutdown). */
export function setActiveTracing(tracing: ActiveTracing | undefined): void {
  active = tracing;
}

/**
 * The W3C carrier for NATS message headers: `traceparent` and `tracestate` go into a request's or an event's
 * headers beside the signature, and are read back by the responder or consumer. Names are written lower case,
 * as the propagator gives them, and read exactly so (NATS headers are case sensitive).
 */
export const natsHeaderSetter: TextMapSetter<MsgHdrs> = {
  set: (headers, key, value) => headers.set(key, value),
};

export const natsHeaderGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (headers) => (headers ? headers.keys() : []),
  get: (headers, key) => (headers?.has(key) ? headers.get(key) : undefined),
};

/** A trace context stored as text (an outbox row's `trace_context`): the propagator's fields as JSON. */
export type StoredTraceContext = string | null;

/** The active context's propagation fields as JSON, for an outbox row; null with tracing off or no span. */
export function storedTraceContext(): StoredTraceContext {
  if (!active) return null;
  const { api } = active;
  if (!api.trace.getSpan(api.context.active())?.spanContext().traceId) return null;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return Object.keys(carrier).length > 0 ? JSON.stringify(carrier) : null;
}

/** The context a stored trace context names (a parent or a link), or undefined when there is none to read. */
export function contextFromStored(stored: StoredTraceContext | undefined): Context | undefined {
  if (!active || !stored) return undefined;
  let carrier: unknown;
  try {
    carrier = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (carrier === null || typeof carrier !== 'object') return undefined;
  const { api } = active;
  const context = api.propagation.extract(api.ROOT_CONTEXT, carrier as Record<string, string>);
  return api.trace.getSpan(context) ? context : undefined;
}

/** The context a NATS message's headers carry (else the active one). */
export function contextFromNats(headers: MsgHdrs | undefined): Context | undefined {
  if (!active) return undefined;
  return active.api.propagation.extract(active.api.context.active(), headers, natsHeaderGetter);
}

/** Writes the given (else the active) context into NATS headers; nothing with tracing off. */
export function injectIntoNats(headers: MsgHdrs, context?: Context): void {
  if (!active) return;
  active.api.propagation.inject(context ?? active.api.context.active(), headers, natsHeaderSetter);
}

export interface SpanSpec {
  kind?: SpanKind;
  attributes?: Record<string, string | number | boolean | undefined>;
  /** The parent; the active context when not given. */
  parent?: Context | undefined;
  /**
   * The spans this one stands for when it has several causes (a batch). Given (even empty) without a parent,
   * the span starts a trace of its own: none of the causes is its parent, whichever context happens to be
   * active (a timer set during one of them carries that one's).
   */
  links?: Link[];
}

/**
 * Runs `work` in a new span (active inside it), ended when the work settles; an error is recorded on it, except
 * one that is the caller's fault (an ApiError below 500: a 404 is an answer, not a failure). With tracing off it
 * is just `work(undefined)`.
 */
export function inSpan<T>(name: string, spec: SpanSpec, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!active) return work(undefined);
  const { api, tracer } = active;
  const parent = spec.parent ?? (spec.links ? api.ROOT_CONTEXT : api.context.active());
  const span = tracer.startSpan(
    name,
    { ...(spec.kind === undefined ? {} : { kind: spec.kind }), attributes: spec.attributes ?? {}, links: spec.links ?? [] },
    parent,
  );
  return api.context.with(api.trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Records a failure on a span; errors that carry a status below 500 are the caller's and leave it OK. */
export function markFailed(span: Span | undefined, error: unknown): void {
  if (!span || !active) return;
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number' && status < 500) return;
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: active.api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The active span; undefined with tracing off or outside a span. */
export function activeSpan(): Span | undefined {
  return active?.api.trace.getSpan(active.api.context.active());
}

/** `trace_id` and `span_id` of the active span, for a log line; empty with tracing off or outside a span. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!active) return {};
  const span = active.api.trace.getSpan(active.api.context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** The active trace's id (the gateway's `Trace-Id` response header); undefined with tracing off. */
export function activeTraceId(): string | undefined {
  if (!active) return undefined;
  return active.api.trace.getSpan(active.api.context.active())?.spanContext().traceId;
}

/**
 * The span of a request's @fastify/otel plugin, when tracing is on and the request is sampled: a cause that
 * work done later for many requests at once links to (the gateway's audit batches).
 */
export function sampledRequestSpan(request: object): SpanContext | undefined {
  if (!active) return undefined;
  // Its context rather than its span: the plugin lets go of the span when it ends it, before onResponse.
  const requestContext = (request as { opentelemetry?: () => { context?: Context | null } }).opentelemetry?.().context;
  const spanContext = requestContext ? active.api.trace.getSpanContext(requestContext) : undefined;
  return spanContext && (spanContext.traceFlags & 1) === 1 ? spanContext : undefined;
}

/** Whether the active span is sampled: recorded, and exported. */
export function activeSpanSampled(): boolean {
  const context = activeSpan()?.spanContext();
  return context !== undefined && (context.traceFlags & 1) === 1;
}

/**
 * For a request the gateway proxies in a trace that is not sampled: its `traceparent` (flags 00) into the
 * forwarded headers, so that the service follows the gateway's decision. A sampled one gets it from the undici
 * instrumentation, with a client span; an unsampled one skips that instrumentation's work (a URL and its
 * headers parsed twice per request, for a span nobody keeps: most of what tracing at 1% cost the gateway).
 */
export function injectUnsampledTrace(headers: Record<string, unknown>): void {
  if (!active || activeSpanSampled() || !activeSpan()) return;
  active.api.propagation.inject(active.api.context.active(), headers);
}

/** Lets outgoing HTTP to this origin (a service the gateway proxies to) carry the trace; nothing with tracing off. */
export function propagateTraceTo(url: string): void {
  active?.propagateTo.add(new URL(url).origin);
}

/** The span kinds, without loading the API (its enum's values, which are part of the OTLP format). */
export const spanKind = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const satisfies Record<string, SpanKind>;

export type { SpanContext };
