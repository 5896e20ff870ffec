import { type Logger, type LoggerOptions, pino } from 'pino';
import { activeTracing, traceLogFields } from './trace.js';

/**
 * Paths pino blanks out (its `redact` option): names at the top of a logged object, and request headers.
 * Keys and secrets must never reach a log line, even when a request or an error object is logged whole.
 * The top-level names overlap `withoutSecrets` below on purpose: pino applies them to a child logger's
 * bindings too, which the walk never sees; request objects are class instances, which it does not enter.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-voice-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'apiKey',
  'api_key',
  'key',
  'raw_key',
  'secret',
  'password',
];

/** Names whose values are blanked out wherever they are nested, in any letter case. */
const secretNames = new Set(['authorization', 'apikey', 'api_key', 'raw_key', 'secret', 'password', 'cookie', 'x-voice-signature']);
const censor = '[redacted]';
const deepest = 8;

/**
 * The value with every nested secret blanked out, copying only the objects on the way to one (the caller's
 * objects are never changed). It looks into plain objects, arrays and errors; other class instances (a
 * request, a buffer) are left to pino's serializers. This replaces pino's leading-wildcard paths
 * (`*.secret`), which reached one level down only and cost about 8 µs per logged line: pino 10's redaction
 * parses every wildcard path again for each top-level value of every line, and of every child's bindings
 * (fastify makes a child per request).
 */
export function withoutSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > deepest) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const clean = withoutSecrets(item, depth + 1);
      if (clean === item) return;
      copy ??= [...value];
      copy[index] = clean;
    });
    return (copy ?? value) as T;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && !(value instanceof Error)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const name of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[name];
    const clean = secretNames.has(name.toLowerCase()) ? censor : withoutSecrets(item, depth + 1);
    if (clean === item) continue;
    // An error keeps its class, message and stack (own, not enumerable), so pino still serializes it as one.
    copy ??= Object.create(prototype, Object.getOwnPropertyDescriptors(value)) as Record<string, unknown>;
    Object.defineProperty(copy, name, { value: clean, enumerable: true, writable: true, configurable: true });
  }
  return (copy ?? value) as T;
}

export function loggerOptions(name: string, level: string): LoggerOptions {
  return {
    name,
    level,
    redact: { paths: redactedPaths, censor },
    // Every logged object is walked; a child logger's bindings are not (pino gives children no formatter),
    // so bindings hold ids only, as fastify's per-request `reqId` does.
    formatters: { log: (object) => withoutSecrets(object) },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    // With tracing on, each line names the span it was written in (`trace_id`, `span_id`); off, no mixin runs.
    ...(activeTracing() ? { mixin: traceLogFields } : {}),
  };
}

/**
 * Logs go to stdout asynchronously: the lines written while a write is in flight leave together in the
 * next one, so a busy process makes a write per batch rather than a syscall per line. pino writes out what
 * is still buffered when the process exits, a crash included.
 */
export function createLogger(name: string, level = 'info'): Logger {
  return pino(loggerOptions(name, level), pino.destination({ dest: 1, sync: false }));
}

export type { Logger };
