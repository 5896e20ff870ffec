import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { withDeadline } from './deadline.js';
import { serverAddress } from './dependencies.js';

export interface RedisConnectOptions {
  /**
   * Fail commands at once while disconnected instead of queueing them: a request path must answer
   * 503 quickly, never hang behind a dead Redis.
   */
  failFast?: boolean;
  /** Upper bound for one command (fail-fast connections only). */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** How long the first connection may take, retries included, before connecting fails. */
  startupTimeoutMs?: number;
}

/** Connection settings in the shape BullMQ's `connection` option takes. */
export interface BullmqConnection {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  tls?: Record<string, never>;
  maxRetriesPerRequest: null;
  enableReadyCheck: boolean;
}

/** Options for connections that BullMQ owns: it requires `maxRetriesPerRequest: null` for workers. */
export function bullmqConnectionOptions(url: string): BullmqConnection {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    enableReadyCheck: false,
  };
}

/**
 * The `connection` and `prefix` options every BullMQ queue and worker of a process takes: its own
 * connection (BullMQ's settings), its keys under the process's REDIS_PREFIX.
 */
export function bullmqOptions(env: { REDIS_URL: string; REDIS_PREFIX: string }): { connection: BullmqConnection; prefix: string } {
  return { connection: bullmqConnectionOptions(env.REDIS_URL), prefix: `${env.REDIS_PREFIX}bull` };
}

const luaScripts = new Map<string, string>();

/**
 * Registers one of a deployable's Lua scripts (its `lua/` directory, read once) as a command on this
 * connection; ioredis runs it by SHA and loads it again after a Redis restart. Each script opens with a
 * comment block naming its KEYS, its ARGV and what it returns.
 */
export function defineLuaCommand(redis: Redis, name: string, file: URL, numberOfKeys: number): void {
  if (name in redis) return;
  let lua = luaScripts.get(file.href);
  if (lua === undefined) {
    lua = readFileSync(file, 'utf8');
    luaScripts.set(file.href, lua);
  }
  redis.defineCommand(name, { numberOfKeys, lua });
}

/** Connects and waits until Redis answers, so a process never starts serving with a dead cache. */
export async function connectRedis(url: string, options: RedisConnectOptions = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    enableOfflineQueue: !options.failFast,
    maxRetriesPerRequest: options.failFast ? 0 : 3,
    ...(options.failFast ? { commandTimeout: options.commandTimeoutMs ?? 400 } : {}),
    // Keep trying to reconnect, at most every two seconds, for as long as the process lives.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  // Errors surface on commands and on readiness; without a listener ioredis would log every retry.
  redis.on('error', () => {});
  // Wait for "ready" rather than for the first attempt alone: a process busy starting up (compiling
  // schemas, loading the Prisma engine) can hold its event loop past the connect timeout, and one lost
  // attempt must not fail the start while the retry strategy is still trying.
  const startupTimeoutMs = options.startupTimeoutMs ?? 15_000;
  const ready = new Promise<void>((resolve) => {
    redis.once('ready', () => resolve());
    redis.connect().catch(() => {});
  });
  try {
    await withDeadline(ready, startupTimeoutMs, `Redis at ${serverAddress(url)} not ready within ${startupTimeoutMs} ms`);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return redis;
}
