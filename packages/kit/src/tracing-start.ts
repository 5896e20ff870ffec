// `@voice/kit/tracing`: what each deployable's main calls first, before it imports anything else (see main.ts).
// It imports nothing but ./trace.js: with no OTEL_* variable set, OpenTelemetry is never loaded.
import { type ActiveTracing, activeTracing, setActiveTracing } from './trace.js';

/**
 * The OTEL_* variables the platform reads or hands to the SDK (the README's environment table lists each).
 * Tracing starts when an exporter is named (OTEL_TRACES_EXPORTER=otlp or console) or an OTLP endpoint is
 * given, unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 */
export const tracingVariables = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_COMPRESSION',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  'OTEL_BSP_EXPORT_TIMEOUT',
] as const;

/** Whether the variables ask for tracing (see tracingVariables). */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts tracing for this process when the OTEL_* variables ask for it, and returns it; otherwise loads nothing
 * and returns undefined. Call it before importing the deployable's code (the instrumented packages are patched
 * as tracing starts). Idempotent: a second call returns the first tracing.
 */
export async function startTracing(service: string): Promise<ActiveTracing | undefined> {
  const existing = activeTracing();
  if (existing) return existing;
  // process.env itself: the SDK and the exporter read their variables there too.
  if (!tracingWanted(process.env)) return undefined;
  const { setUpTracing } = await import('./tracing.js');
  const tracing = setUpTracing(service);
  setActiveTracing(tracing);
  return tracing;
}

/** Exports what is left and stops tracing (at shutdown, after the app closed). */
export async function stopTracing(): Promise<void> {
  const tracing = activeTracing();
  if (!tracing) return;
  await tracing.shutdown();
  setActiveTracing(undefined);
}

export type { ActiveTracing };
