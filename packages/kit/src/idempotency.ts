import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError } from './errors.js';

export interface IdempotencyOptions {
  redis: Redis;
  /** The process's Redis key prefix (REDIS_PREFIX). */
  prefix: string;
  orgId: string;
  /** What is being created, e.g. `calls.create`: the same key may be reused for different operations. */
  operation: string;
  /** The caller's `Idempotency-Key`, or undefined to run without idempotency. */
  key: string | undefined;
  /** What identifies "the same request": the body (and anything else that changes the effect). */
  fingerprint: unknown;
  /** How long a key is remembered. */
  ttlSeconds?: number;
  /**
   * How long an unfinished claim holds the key. Short, so a process that died mid-work frees the key for
   * a retry within a minute or two, not a day; longer than any request may take.
   */
  pendingTtlSeconds?: number;
}

export interface IdempotentResult<T> {
  status: number;
  body: T;
  /** True when this is the stored first response, returned again. */
  replayed: boolean;
}

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/** Validates an `Idempotency-Key` header value (printable ASCII, at most 255 characters). */
export function parseIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !keyPattern.test(value)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', { param: 'Idempotency-Key' });
  }
  return value;
}

function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('hex');
}

type Stored<T> = { state: 'pending'; hash: string } | { state: 'done'; hash: string; status: number; body: T };

/**
 * Runs `work` at most once per (organization, operation, key), Stripe style: the same key with the same
 * request returns the first response; with a different request it is 409 `idempotency_conflict`. A
 * failed attempt forgets the key, so the caller can retry it.
 */
export async function idempotent<T>(
  options: IdempotencyOptions,
  work: () => Promise<{ status: number; body: T }>,
): Promise<IdempotentResult<T>> {
  if (options.key === undefined) return { ...(await work()), replayed: false };
  // The hash tag keeps an organization's keys on one Redis Cluster slot.
  const redisKey = `${options.prefix}idem:{${options.orgId}}:${options.operation}:${options.key}`;
  const ttlSeconds = options.ttlSeconds ?? 24 * 60 * 60;
  const hash = digest(options.fingerprint);
  const pending: Stored<T> = { state: 'pending', hash };
  const claimed = await options.redis.set(redisKey, JSON.stringify(pending), 'EX', options.pendingTtlSeconds ?? 120, 'NX');
  if (claimed === null) {
    const raw = await options.redis.get(redisKey);
    if (raw === null) return idempotent(options, work); // expired between the two calls
    const stored = JSON.parse(raw) as Stored<T>;
    if (stored.hash !== hash) {
      throw new ApiError('idempotency_conflict', 'This Idempotency-Key was used with a different request; use a new key.', {
        param: 'Idempotency-Key',
      });
    }
    if (stored.state === 'pending') {
      throw new ApiError('conflict', 'A request with this Idempotency-Key is still in progress; retry in a moment.', {
        param: 'Idempotency-Key',
      });
    }
    return { status: stored.status, body: stored.body, replayed: true };
  }
  let result: { status: number; body: T };
  try {
    result = await work();
  } catch (error) {
    // Nothing was done: free the key so the caller can retry it.
    await options.redis.del(redisKey).catch(() => {});
    throw error;
  }
  // The work is done: from here on the key must never be freed, or a retry would do it twice. If the
  // record cannot be written, the claim still holds the key until its lease ends.
  const done: Stored<T> = { state: 'done', hash, status: result.status, body: result.body };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await options.redis.set(redisKey, JSON.stringify(done), 'EX', ttlSeconds);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
    }
  }
  return { ...result, replayed: false };
}

/** What an idempotent operation needs from its process's deps: Redis and the key prefix. */
export interface IdempotencyDeps {
  redis: Redis;
  env: { REDIS_PREFIX: string };
}

/**
 * Runs an operation at most once per idempotency key, with the one key namespace of REST and NATS alike: a
 * key belongs to (organization, operation), the operation named once (e.g. `calls.queue`) whichever door the
 * request came through, and "the same request" is the operation's input without its `idempotency_key`. A
 * REST route passes the header as `idempotency_key` (`idempotencyKeyOf`), beside the body and any path
 * parameter the operation acts on.
 */
export async function runIdempotent<I extends { idempotency_key?: string | undefined }, T>(
  deps: IdempotencyDeps,
  orgId: string,
  operation: string,
  input: I,
  work: (input: Omit<I, 'idempotency_key'>) => Promise<T>,
  status = 201,
): Promise<IdempotentResult<T>> {
  const { idempotency_key: key, ...request } = input;
  return idempotent({ redis: deps.redis, prefix: deps.env.REDIS_PREFIX, orgId, operation, key, fingerprint: request }, async () => ({
    status,
    body: await work(request),
  }));
}

/** The request's `Idempotency-Key` header, checked (400 when malformed), or undefined. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  return parseIdempotencyKey(request.headers['idempotency-key']);
}
