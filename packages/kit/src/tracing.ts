// The OpenTelemetry set-up, imported by `startTracing` only when tracing is wanted: nothing here is loaded
// otherwise. Everything is configured by the standard OTEL_* variables (the SDK and the exporter read them):
// the endpoint, the protocol (http/protobuf by default, or http/json), headers, the sampler and its ratio, the
// resource, the batch processor's limits.
//
// How instrumentation reaches ES modules. @opentelemetry/instrumentation patches a module when it is loaded:
// `require` through require-in-the-middle, `import` through import-in-the-middle, whose loader hook must be
// registered (`node --import …/hook.mjs`, or `module.register`) before the first import, and then wraps every
// ES module the process loads. Here neither the flag nor the hook is needed:
// - fastify (@fastify/otel) is a plugin each app registers (createHttpApp), and undici reports its requests on
//   diagnostics_channel: nothing is patched;
// - BullMQ traces itself, given bullmq-otel as its `telemetry` option (bullmqOptions);
// - pg, pg-pool and ioredis are CommonJS packages. An ES module that imports one gets the exports of Node's
//   CommonJS cache, the same object `require` returns; so they are required once below, right after the
//   instrumentations are enabled, and require-in-the-middle patches their prototypes in place, before (and for)
//   every importer. This works the same under `tsx --conditions=source` (dev, tests) and plain `node main.js`
//   (the Docker image), with no loader flag, and costs no hook on every other module's load.
import { createRequire } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BullMQOtel } from 'bullmq-otel';
import type { FastifyPluginCallback } from 'fastify';
import { type ActiveTracing, activeSpanSampled } from './trace.js';

const instrumentationName = '@voice/kit';

/** The exporter OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL choose. */
function exporterFor(env: NodeJS.ProcessEnv): SpanExporter {
  if (env.OTEL_TRACES_EXPORTER === 'console') return new ConsoleSpanExporter();
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol === 'http/json') return new JsonExporter();
  if (protocol !== 'http/protobuf')
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported; http/protobuf or http/json`);
  return new ProtoExporter();
}

/** Starts the SDK for the deployable `service` (`service.name`, unless OTEL_SERVICE_NAME says otherwise). */
export function setUpTracing(service: string): ActiveTracing {
  const resource = resourceFromAttributes({ 'service.name': service }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    // The sampler is the SDK's own reading of OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (parent-based
    // always-on by default); the batch processor reads OTEL_BSP_*.
    spanProcessors: [new BatchSpanProcessor(exporterFor(process.env))],
  });
  // W3C trace context only: `baggage` would carry whatever a client put in it to every service.
  provider.register({ propagator: new W3CTraceContextPropagator() });

  const propagateTo = new Set<string>();
  registerInstrumentations({
    instrumentations: [
      // Only spans inside a trace: the relays' polls, BullMQ's blocking reads and the probes' pings are not work
      // anyone asked for, and would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      // The command's name as its statement, not its arguments: cheaper on every command of a traced request (the
      // quota call's among them, sampled or not), and keys and values (organization ids, idempotency records)
      // stay out of the spans.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new UndiciInstrumentation({
        // A span, and the `traceparent` it adds, only for requests to the platform's own services (see propagateTo),
        // in a sampled trace: an unsampled one's `traceparent` is added by the gateway itself (injectUnsampledTrace).
        ignoreRequestHook: (request) => !propagateTo.has(request.origin) || !activeSpanSampled(),
        requireParentforSpans: true,
      }),
    ],
  });
  const require = createRequire(import.meta.url);
  require('ioredis');
  require('pg');
  // pg-pool as pg itself resolves it (kit does not depend on it directly).
  createRequire(require.resolve('pg'))('pg-pool');

  const fastifyPlugin = (service: string): FastifyPluginCallback => {
    const instrumentation = new FastifyOtelInstrumentation({
      // One span per request: a span for each of fastify's hooks, and another for the handler, would multiply
      // the work of every request, sampled or not, for little a request's span does not already say.
      instrumentHooks: false,
      instrumentHandler: false,
      ignorePaths: (route: { url?: string }) => route.url === '/healthz' || route.url === '/readyz' || route.url === '/metrics',
      requestHook: (span, request) => {
        span.updateName(`${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`);
        span.setAttribute('voice.service', service);
      },
    });
    return instrumentation.plugin() as FastifyPluginCallback;
  };

  return {
    api,
    tracer: api.trace.getTracer(instrumentationName),
    bullmq: new BullMQOtel({ tracerName: 'bullmq' }),
    fastifyPlugin,
    propagateTo,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
