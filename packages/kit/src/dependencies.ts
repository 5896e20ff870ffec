import { connect as connectNats } from '@nats-io/transport-node';
import pg from 'pg';
import { natsServer } from './nats/server-url.js';
import { createRedisClient, type RedisMode } from './redis.js';
import { serverAddress } from './server-address.js';

export interface BackingServices {
  databaseUrl?: string;
  redisUrl?: string;
  /** How the servers redisUrl lists are run (REDIS_MODE; one server when unset). */
  redisMode?: RedisMode;
  redisSentinelName?: string | undefined;
  natsUrl?: string;
}

const howToStart = {
  postgres:
    "start it with 'docker compose up -d postgres', or on a Debian host: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
  redis: "start it with 'docker compose up -d redis', or on a host: redis-server --daemonize yes --bind 127.0.0.1 --port 6379",
  nats: "start it with 'docker compose up -d nats', or on a host: nats-server -js -a 127.0.0.1 -p 4222 &",
} as const;

export class DependencyError extends Error {
  override readonly name = 'DependencyError';
}

function reason(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

async function checkPostgres(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
  } catch (error) {
    // The server answered but the database is not created yet: reachable; migration creates it.
    if (reason(error) === '3D000') return;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

async function checkRedis(services: BackingServices, timeoutMs: number): Promise<void> {
  const where = { REDIS_URL: services.redisUrl as string, REDIS_MODE: services.redisMode, REDIS_SENTINEL_NAME: services.redisSentinelName };
  const redis = createRedisClient(where, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } finally {
    redis.disconnect();
  }
}

async function checkNats(url: string, timeoutMs: number): Promise<void> {
  const connection = await connectNats({ ...natsServer(url), timeout: timeoutMs, reconnect: false });
  await connection.close();
}

/**
 * Checks that every backing service answers, all at once, within `timeoutMs`. Throws one readable line per
 * dead service: which one, at which address, why, and how to start it.
 */
export async function assertBackingServices(services: BackingServices, timeoutMs = 3_000): Promise<void> {
  const checks: Array<[keyof typeof howToStart, string, (url: string, timeoutMs: number) => Promise<void>]> = [];
  if (services.databaseUrl) checks.push(['postgres', services.databaseUrl, checkPostgres]);
  if (services.redisUrl) checks.push(['redis', services.redisUrl, (_url, timeout) => checkRedis(services, timeout)]);
  if (services.natsUrl) checks.push(['nats', services.natsUrl, checkNats]);
  const results = await Promise.allSettled(checks.map(([, url, check]) => check(url, timeoutMs)));
  const failures = results.flatMap((result, index) => {
    if (result.status === 'fulfilled') return [];
    const [name, url] = checks[index] as (typeof checks)[number];
    return [`${name} is not reachable at ${serverAddress(url)} (${reason(result.reason)}); ${howToStart[name]}`];
  });
  if (failures.length > 0) throw new DependencyError(failures.join('\n'));
}
