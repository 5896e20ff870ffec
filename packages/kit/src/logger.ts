import { type Logger, type LoggerOptions, pino } from 'pino';

/**
 * Paths pino blanks out wherever they appear in a logged object. Keys and secrets must never reach a log
 * line, even when a request or an error object is logged whole.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-voice-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'key',
  '*.raw_key',
  'raw_key',
  'secret',
  '*.secret',
  'password',
  '*.password',
];

export function loggerOptions(name: string, level: string): LoggerOptions {
  return {
    name,
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
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
