import { inspect } from 'node:util';

export interface EventuallyOptions {
  /** How long to keep trying before failing: a bound so a broken test reports instead of hanging, not a claim about speed. */
  timeoutMs?: number;
  /** The pause between two tries. */
  intervalMs?: number;
}

/** What a check answers when the condition does not hold yet. */
type NotYet = undefined | false;

/**
 * Runs `check` until it returns something other than `undefined` or `false`, and returns that, for work
 * that happens off the request path (a worker, a consumer, a timer). A check that throws is tried again,
 * so assertions may be used inside it. After `timeoutMs` it fails with `what` and the last value or error.
 *
 * It fails only on a try that began after the deadline, after a pause: a try that began before it and ran
 * past it held the event loop meanwhile, so what arrived during it is looked at once more before the wait is
 * called a failure. Such a try was seen in CI: 149 s in one `assert.ok` without a message, whose message
 * node 20 writes by reading the call site's source and, with tsx's one-line modules, can re-parse it for
 * minutes (`findColumn` recursing with nothing more to read). Give assertions in checks a message.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50 }: EventuallyOptions = {},
): Promise<Exclude<T, NotYet>> {
  const deadline = Date.now() + timeoutMs;
  let tries = 0;
  for (;;) {
    let last: string;
    tries += 1;
    const triedAt = Date.now();
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as Exclude<T, NotYet>;
      last = `last value ${inspect(value)}`;
    } catch (error) {
      last = `last error ${error instanceof Error ? error.message : inspect(error)}`;
    }
    if (triedAt >= deadline) {
      // How long the last try took tells a stalled process (one try of minutes) from a condition never met.
      const lastTry = `${tries} tries, the last took ${Date.now() - triedAt} ms`;
      throw new Error(`timed out after ${timeoutMs} ms (${lastTry}) waiting for ${what}; ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
