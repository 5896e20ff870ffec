import { readFileSync } from 'node:fs';
import type { Telemetry } from 'bullmq';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { withDeadline } from './deadline.js';
import { serverAddress } from './server-address.js';
import { activeTracing } from './trace.js';

/**
 * How the Redis servers REDIS_URL lists are run: one server (`single`, the default), a Redis Cluster
 * (`cluster`: the URLs are seed nodes, the client learns the others and follows each key to its slot's
 * primary) or a primary watched by Redis Sentinel (`sentinel`: the URLs are the sentinels, asked for the
 * primary named REDIS_SENTINEL_NAME, again after every failover).
 */
export type RedisMode = 'single' | 'cluster' | 'sentinel';

/** Where Redis is: the variables of baseEnvSchema every Redis client is made from. */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_MODE?: RedisMode | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
}

/** A URL alone (tests, scripts) is one server. */
function redisEnvOf(where: RedisEnv | string): RedisEnv {
  return typeof where === 'string' ? { REDIS_URL: where } : where;
}

/**
 * The servers of a REDIS_URL list (comma separated) and the settings its first URL carries for all of them:
 * credentials, database (single and sentinel only: a Cluster has database 0 alone) and TLS (`rediss:`).
 */
export function redisNodes(list: string): {
  nodes: Array<{ host: string; port: number }>;
  auth: { username?: string; password?: string; db?: number; tls?: Record<string, never> };
} {
  const urls = list.split(',').map((url) => new URL(url.trim()));
  const first = urls[0] as URL;
  return {
    nodes: urls.map((url) => ({ host: url.hostname, port: Number(url.port || 6379) })),
    auth: {
      ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
      ...(first.pathname.length > 1 ? { db: Number(first.pathname.slice(1)) } : {}),
      ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  };
}

/**
 * Every Redis client of the platform is made here, from the environment, so every connection (requests,
 * health checks, BullMQ) follows REDIS_MODE. `options` are ioredis's, as for one server; in cluster mode
 * they apply to each node's connection, and the cluster-wide ones (offline queue, auto-pipelining, lazy
 * connect, the retry strategy) to the cluster client.
 *
 * A Cluster client is returned typed as `Redis`: it answers the same commands, sending each to the
 * primary of its key's slot. Commands over several keys therefore need keys of one slot: every such key
 * here carries a hash tag (`{org_x}`), and SCAN sees one node only (tests use it, never a request path).
 */
export function createRedisClient(where: RedisEnv | string, options: RedisOptions = {}): Redis {
  const env = redisEnvOf(where);
  const { nodes, auth } = redisNodes(env.REDIS_URL);
  const mode = env.REDIS_MODE ?? 'single';
  if (mode === 'cluster') {
    const { lazyConnect, enableOfflineQueue, enableAutoPipelining, retryStrategy, ...nodeOptions } = options;
    const { db: _clusterHasNoDatabases, ...nodeAuth } = auth;
    const clusterOptions: ClusterOptions = {
      ...(lazyConnect === undefined ? {} : { lazyConnect }),
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
      ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
      // A failover moves slots: wait a little, then ask the cluster again where they are, rather than fail.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      redisOptions: { ...nodeOptions, ...nodeAuth },
      // With TLS, connect to nodes by the names the cluster gives (not resolved to addresses first), so that
      // each node's certificate is checked against its host name, as managed clusters require.
      ...(nodeAuth.tls
        ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) }
        : {}),
    };
    // Typed as Redis on purpose (see above): Cluster shares Redis's command interface.
    return new Cluster(nodes, clusterOptions) as unknown as Redis;
  }
  if (mode === 'sentinel') {
    if (!env.REDIS_SENTINEL_NAME)
      throw new Error('REDIS_MODE=sentinel needs REDIS_SENTINEL_NAME, the name of the primary the sentinels watch');
    // The credentials are the primary's (and its replicas'); the sentinels are asked without any.
    return new Redis({ ...options, ...auth, sentinels: nodes, name: env.REDIS_SENTINEL_NAME });
  }
  if (nodes.length > 1) throw new Error('REDIS_URL lists several servers: set REDIS_MODE=cluster or REDIS_MODE=sentinel');
  // One server: ioredis reads the URL itself, as it always has (query options such as `?family=6` included).
  return new Redis(env.REDIS_URL.trim(), options);
}

/**
 * The `connection` and `prefix` options every BullMQ queue and worker of a process takes, its keys under
 * the process's REDIS_PREFIX. One server or Sentinel: connection settings, from which BullMQ makes (and
 * closes) a connection per queue and worker. Cluster: BullMQ takes a Cluster client only, so the process
 * shares one (BullMQ gives each worker a duplicate of its own for blocking commands; closeBullmqConnections
 * ends the shared one), and the prefix is a hash tag, as BullMQ requires for a Cluster: every key of every
 * queue in one slot, which its multi-key scripts need. Outside a Cluster the prefix keeps no braces, so
 * the jobs an existing deployment has queued stay where its workers look.
 */
export function bullmqOptions(env: RedisEnv & { REDIS_PREFIX: string }): {
  connection: BullmqConnection;
  prefix: string;
  telemetry?: Telemetry;
} {
  const prefix = `${env.REDIS_PREFIX}bull`;
  // With tracing on, BullMQ traces adding and processing jobs itself, and a job carries its adder's context.
  const bullmq = activeTracing()?.bullmq;
  const telemetry = bullmq ? { telemetry: bullmq } : {};
  if (env.REDIS_MODE === 'cluster') return { connection: sharedBullmqCluster(env), prefix: `{${prefix}}`, ...telemetry };
  return { connection: bullmqConnectionOptions(env), prefix, ...telemetry };
}

/** BullMQ requires `maxRetriesPerRequest: null` on its connections (a worker's blocking commands wait as long as they must). */
const bullmqClientOptions = { maxRetriesPerRequest: null, enableReadyCheck: false } as const;

/** Connection settings in the shape BullMQ's `connection` option takes (one server or Sentinel). */
export interface BullmqConnectionSettings {
  host?: string;
  port?: number;
  sentinels?: Array<{ host: string; port: number }>;
  name?: string;
  username?: string;
  password?: string;
  db?: number;
  tls?: Record<string, never>;
  maxRetriesPerRequest: null;
  enableReadyCheck: boolean;
}

/** Settings, or the shared Cluster client (cluster mode). */
export type BullmqConnection = BullmqConnectionSettings | Redis;

function bullmqConnectionOptions(env: RedisEnv): BullmqConnectionSettings {
  const { nodes, auth } = redisNodes(env.REDIS_URL);
  if (env.REDIS_MODE === 'sentinel') return { ...auth, sentinels: nodes, name: env.REDIS_SENTINEL_NAME as string, ...bullmqClientOptions };
  return { ...auth, ...(nodes[0] as { host: string; port: number }), ...bullmqClientOptions };
}

const bullmqClusters = new Map<string, Redis>();

function sharedBullmqCluster(env: RedisEnv): Redis {
  let cluster = bullmqClusters.get(env.REDIS_URL);
  if (!cluster) {
    cluster = createRedisClient(env, { ...bullmqClientOptions });
    // BullMQ reports errors on its queues and workers; without a listener ioredis would log every retry.
    cluster.on('error', () => {});
    bullmqClusters.set(env.REDIS_URL, cluster);
  }
  return cluster;
}

/** Ends the Cluster client the process's BullMQ queues and workers share (cluster mode); close them first. */
export async function closeBullmqConnections(): Promise<void> {
  const clusters = [...bullmqClusters.values()];
  bullmqClusters.clear();
  await Promise.all(clusters.map((cluster) => cluster.quit().catch(() => cluster.disconnect())));
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
  /** Further ioredis options (auto-pipelining, say); the ones above win where both set one. */
  clientOptions?: RedisOptions;
}

/** Connects and waits until Redis answers, so a process never starts serving with a dead cache. */
export async function connectRedis(where: RedisEnv | string, options: RedisConnectOptions = {}): Promise<Redis> {
  const url = redisEnvOf(where).REDIS_URL;
  const redis = createRedisClient(where, {
    ...options.clientOptions,
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
