import type { Logger } from '../logger.js';

/** A logger that keeps the message of each line logged at warn and above, for a test to look for. */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => {
    lines.push(String(args.find((arg) => typeof arg === 'string') ?? ''));
  };
  const logger = { warn: keep, error: keep, info: () => {}, debug: () => {} } as unknown as Logger;
  return { logger, lines };
}
