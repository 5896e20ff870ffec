import { randomUUID } from 'node:crypto';
import { retryAfterSeconds } from './errors.js';

/** The quota figures of a response (`X-RateLimit-*`): the key's monthly quota, what is left, when it resets. */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** When the quota resets (the daily plan limit's reset when that is what refused the request). */
  reset: Date;
}

export interface RetryOptions {
  /** Attempts after the first, on 429 and 503. Default 3. */
  retries?: number;
  /** The longest `Retry-After` waited for; a longer one (a monthly quota used up) is not retried. Default 30 s. */
  maxDelayMs?: number;
  /** The wait when a 429 or 503 names none: doubled each attempt from this. Default 500 ms. */
  baseDelayMs?: number;
  /** How to wait; a test can record the waits instead. */
  sleep?: (ms: number) => Promise<void>;
}

export interface TransportOptions {
  apiKey: string;
  retry?: RetryOptions;
  /** The fetch to send with; the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Told every response's quota figures. */
  onRateLimit?: (rateLimit: RateLimit) => void;
}

const retried = new Set([429, 503]);

/**
 * The fetch every call goes through: the key as a Bearer credential, an `Idempotency-Key` on each POST
 * that has none (the same key on every retry, so a retried create happens once), retries of 429 and 503
 * that wait as `Retry-After` says (bounded), retries of a connection that failed before any answer (a
 * reset keep-alive socket; safe, as every POST carries its key), and the quota figures of each response.
 */
export function transport(options: TransportOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const sleep = options.retry?.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const retries = options.retry?.retries ?? 3;
  const maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
  const baseDelayMs = options.retry?.baseDelayMs ?? 500;
  return async (request) => {
    request.headers.set('authorization', `Bearer ${options.apiKey}`);
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', randomUUID());
    for (let attempt = 0; ; attempt++) {
      // A request's body can be read once: each attempt sends a copy, the original stays readable.
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        // fetch rejects with a TypeError when no answer came (refused, reset); anything else is the caller's.
        if (!(error instanceof TypeError) || attempt >= retries || request.signal.aborted) throw error;
        await sleep(baseDelayMs * 2 ** attempt);
        continue;
      }
      const rateLimit = rateLimitOf(response.headers);
      if (rateLimit) options.onRateLimit?.(rateLimit);
      if (!retried.has(response.status) || attempt >= retries) return response;
      const told = retryAfterSeconds(response.headers, Date.now());
      const delayMs = told !== undefined ? told * 1000 : baseDelayMs * 2 ** attempt;
      if (delayMs > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delayMs);
    }
  };
}

function rateLimitOf(headers: Headers): RateLimit | undefined {
  const limit = headers.get('x-ratelimit-limit');
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (limit === null || remaining === null || reset === null) return undefined;
  return { limit: Number(limit), remaining: Number(remaining), reset: new Date(Number(reset) * 1000) };
}
