import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isRunning, ownChild, stopChild, waitForPort } from './processes.js';
import { freePort } from './servers.js';

/**
 * Clusters a test owns, on loopback ports from `freePort()`: a Redis Cluster (redis-server with
 * `--cluster-enabled yes`, joined by `redis-cli --cluster create`) and a NATS cluster of JetStream servers
 * joined by routes. Each node keeps its folder (Redis's nodes.conf, NATS's JetStream store) across a kill
 * and a restart, as a pod with a persistent volume does; Redis keeps no data on disk (a primary that
 * comes back without a replica to resync from is empty).
 */

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One server of a cluster; `index` is its place in the cluster's `nodes`, fixed across kills and restarts. */
export interface ClusterNode {
  readonly index: number;
  readonly port: number;
  /** `redis://127.0.0.1:port` or `nats://127.0.0.1:port`. */
  readonly url: string;
  readonly running: boolean;
}

interface NodeProcess extends ClusterNode {
  start(): Promise<void>;
  kill(): Promise<void>;
}

/** Distinct free ports: `freePort()` checks one at a time, so two calls may name the same one. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Whether the program is on the PATH; a test skips (saying why) where it is not. */
export async function hasProgram(name: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${name}`]);
    return true;
  } catch {
    return false;
  }
}

function nodeProcess(index: number, port: number, url: string, dir: string, command: string, args: string[]): NodeProcess {
  let child: ChildProcess | undefined;
  return {
    index,
    port,
    url,
    get running() {
      return isRunning(child);
    },
    async start() {
      if (isRunning(child)) return;
      // The server's own log in its folder: what to read when a cluster does not form.
      const log = openSync(join(dir, 'server.log'), 'a');
      child = ownChild(spawn(command, args, { stdio: ['ignore', log, log] }));
      closeSync(log);
      await waitForPort(port, child, `${command} ${index}`);
    },
    kill: () => stopChild(child, 'SIGKILL'),
  };
}

function nodeOf<N extends NodeProcess>(nodes: readonly N[], node: ClusterNode | number): N {
  const found = nodes[typeof node === 'number' ? node : node.index];
  if (!found) throw new Error(`no node ${typeof node === 'number' ? node : node.index} in this cluster`);
  return found;
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(100);
  }
}

// ---- Redis Cluster --------------------------------------------------------------------------------------

export interface RedisClusterOptions {
  /** Primaries, each serving a share of the 16,384 slots (at least 3, as `redis-cli --cluster create` requires). */
  primaries?: number;
  /** 1 gives every primary a replica, promoted when its primary is killed. */
  replicasPerPrimary?: 0 | 1;
  /** `cluster-node-timeout`: how long a silent node takes to be failed (and its replica promoted). */
  nodeTimeoutMs?: number;
}

export interface RedisCluster {
  /** Every node, primaries first as created; roles change with failovers (see `primaries()`). */
  readonly nodes: readonly ClusterNode[];
  /** Every node's URL, comma separated: the REDIS_URL of a deployable with REDIS_MODE=cluster. */
  readonly url: string;
  /** The variables a deployable under test takes to use this cluster. */
  readonly env: { REDIS_URL: string; REDIS_MODE: 'cluster' };
  /** The running nodes that are primaries now. */
  primaries(): Promise<ClusterNode[]>;
  /** The running primary that serves the key's slot now. */
  primaryFor(key: string): Promise<ClusterNode>;
  /** SIGKILLs the node: its data in memory is gone; its replica (if any) is promoted after the node timeout. */
  kill(node: ClusterNode | number): Promise<void>;
  /** Starts the node again (killing it first if it runs) with its nodes.conf, then waits until the cluster serves every slot. */
  restart(node: ClusterNode | number): Promise<void>;
  /**
   * Waits until every running node reports `cluster_state:ok`, every slot is served by a running primary
   * (after a kill: once the replica is promoted) and every running replica is in sync with its primary.
   */
  waitUntilServing(timeoutMs?: number): Promise<void>;
  /** Stops every node and deletes their folders. */
  stop(): Promise<void>;
}

async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5_000 });
  return stdout;
}

interface ClusterNodesLine {
  port: number;
  flags: string[];
  /** Slot ranges served, first and last included (slots being migrated, shown in brackets, left out). */
  ranges: Array<[number, number]>;
}

/** `CLUSTER NODES` as seen by one node: each node's port, flags and the slots it serves. */
async function clusterNodes(port: number): Promise<ClusterNodesLine[]> {
  const text = await redisCli(port, 'cluster', 'nodes');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, address = '', flags = '', , , , , , ...slots] = line.split(' ');
      const ranges = slots
        .filter((range) => !range.startsWith('['))
        .map((range): [number, number] => {
          const [first = 0, last = first] = range.split('-').map(Number);
          return [first, last];
        });
      return { port: Number(address.split('@')[0]?.split(':')[1]), flags: flags.split(','), ranges };
    });
}

const slotCount = (line: ClusterNodesLine) => line.ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0);

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicas = options.replicasPerPrimary ?? 0;
  if (primaries < 3) throw new Error('a Redis Cluster needs at least 3 primaries');
  const count = primaries * (1 + replicas);
  // Two ports a node: clients, and the cluster bus (set explicitly, since the default port + 10000 may be outside TEST_OWN_PORTS).
  const ports = await distinctFreePorts(count * 2);
  const root = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const nodes = Array.from({ length: count }, (_, index) => {
    const port = ports[index * 2] as number;
    const dir = join(root, String(port));
    mkdirSync(dir);
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(ports[index * 2 + 1]),
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(options.nodeTimeoutMs ?? 2_000),
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    return nodeProcess(index, port, `redis://127.0.0.1:${port}`, dir, 'redis-server', args);
  });

  const running = () => nodes.filter((node) => node.running);
  const byPort = (port: number) => nodes.find((node) => node.port === port);

  const cluster: RedisCluster = {
    nodes,
    url: nodes.map((node) => node.url).join(','),
    env: { REDIS_URL: nodes.map((node) => node.url).join(','), REDIS_MODE: 'cluster' },
    async primaries() {
      const roles = await Promise.all(
        running().map(async (node) => ((await redisCli(node.port, 'role')).startsWith('master') ? node : undefined)),
      );
      return roles.filter((node): node is NodeProcess => node !== undefined);
    },
    async primaryFor(key) {
      const slot = Number((await redisCli((running()[0] as NodeProcess).port, 'cluster', 'keyslot', key)).trim());
      for (const node of await cluster.primaries()) {
        const myself = (await clusterNodes(node.port)).find((line) => line.flags.includes('myself'));
        if (myself?.ranges.some(([first, last]) => slot >= first && slot <= last)) return node;
      }
      throw new Error(`no running primary serves slot ${slot}`);
    },
    kill: (node) => nodeOf(nodes, node).kill(),
    async restart(node) {
      const target = nodeOf(nodes, node);
      await target.kill();
      await target.start();
      await cluster.waitUntilServing();
    },
    waitUntilServing: (timeoutMs = 30_000) =>
      waitFor('the Redis Cluster to serve every slot', timeoutMs, async () => {
        for (const node of running()) {
          const info = await redisCli(node.port, 'cluster', 'info');
          if (!info.includes('cluster_state:ok')) return false;
          const view = await clusterNodes(node.port);
          let served = 0;
          for (const line of view) {
            if (!line.flags.includes('master') || line.ranges.length === 0) continue;
            if (line.flags.some((flag) => flag.startsWith('fail')) || !byPort(line.port)?.running) return false;
            served += slotCount(line);
          }
          if (served !== 16_384) return false;
          const replication = await redisCli(node.port, 'info', 'replication');
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
        }
        return true;
      }),
    async stop() {
      await Promise.all(nodes.map((node) => node.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    await Promise.all(nodes.map((node) => node.start()));
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], {
      timeout: 60_000,
    });
    await cluster.waitUntilServing();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

// ---- Redis Sentinel -------------------------------------------------------------------------------------

export interface RedisSentinel {
  /** The data servers: the first starts as primary, the others as its replicas. */
  readonly servers: readonly ClusterNode[];
  readonly sentinels: readonly ClusterNode[];
  /** The name the sentinels know the primary by. */
  readonly name: string;
  /** The variables a deployable under test takes to use it: the sentinels' URLs, REDIS_MODE=sentinel and the name. */
  readonly env: { REDIS_URL: string; REDIS_MODE: 'sentinel'; REDIS_SENTINEL_NAME: string };
  /** The data server the sentinels name as primary now. */
  primary(): Promise<ClusterNode>;
  /** Asks the sentinels for a failover (SENTINEL FAILOVER) and waits until another server is the primary. */
  failover(): Promise<ClusterNode>;
  /** Stops every server and sentinel and deletes their folders. */
  stop(): Promise<void>;
}

/** A primary with replicas and sentinels watching it (quorum 1), on ports from `freePort()`, for REDIS_MODE=sentinel. */
export async function startRedisSentinel(options: { replicas?: number; sentinels?: number } = {}): Promise<RedisSentinel> {
  const replicas = options.replicas ?? 1;
  const sentinelCount = options.sentinels ?? 1;
  const name = 'voice';
  const ports = await distinctFreePorts(1 + replicas + sentinelCount);
  const root = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  const primaryPort = ports[0] as number;
  const folder = (port: number) => {
    const dir = join(root, String(port));
    mkdirSync(dir);
    return dir;
  };
  const servers = ports.slice(0, 1 + replicas).map((port, index) => {
    const dir = folder(port);
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
    if (index > 0) args.push('--replicaof', '127.0.0.1', String(primaryPort));
    return nodeProcess(index, port, `redis://127.0.0.1:${port}`, dir, 'redis-server', args);
  });
  const sentinels = ports.slice(1 + replicas).map((port, index) => {
    const dir = folder(port);
    // Sentinel rewrites its configuration file as it learns (replicas, other sentinels, failovers).
    const config = join(dir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        '',
      ].join('\n'),
    );
    return nodeProcess(index, port, `redis://127.0.0.1:${port}`, dir, 'redis-server', [config, '--sentinel']);
  });
  const all = [...servers, ...sentinels];

  const primaryPortNow = async () => {
    const answer = await redisCli((sentinels[0] as NodeProcess).port, 'sentinel', 'get-master-addr-by-name', name);
    return Number(answer.trim().split('\n')[1]);
  };
  /** Every running replica in sync with the primary the sentinels name, and every sentinel knowing them all. */
  const settled = async () => {
    const port = await primaryPortNow();
    if (!(await redisCli(port, 'role')).startsWith('master')) return false;
    for (const server of servers.filter((candidate) => candidate.running && candidate.port !== port)) {
      const replication = await redisCli(server.port, 'info', 'replication');
      if (!replication.includes(`master_port:${port}`) || !replication.includes('master_link_status:up')) return false;
    }
    for (const sentinel of sentinels) {
      const known = await redisCli(sentinel.port, 'sentinel', 'replicas', name);
      if (servers.some((server) => server.port !== port && !known.includes(String(server.port)))) return false;
    }
    return true;
  };

  const sentinel: RedisSentinel = {
    servers,
    sentinels,
    name,
    env: { REDIS_URL: sentinels.map((node) => node.url).join(','), REDIS_MODE: 'sentinel', REDIS_SENTINEL_NAME: name },
    async primary() {
      const port = await primaryPortNow();
      const found = servers.find((server) => server.port === port);
      if (!found) throw new Error(`the sentinels name ${port} as primary, none of this test's servers`);
      return found;
    },
    async failover() {
      const before = await primaryPortNow();
      await redisCli((sentinels[0] as NodeProcess).port, 'sentinel', 'failover', name);
      await waitFor('the failover', 30_000, async () => (await primaryPortNow()) !== before && (await settled()));
      return sentinel.primary();
    },
    async stop() {
      await Promise.all(all.map((node) => node.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    for (const server of servers) await server.start();
    for (const node of sentinels) await node.start();
    await waitFor('the sentinels to see the primary and its replicas', 30_000, settled);
  } catch (error) {
    await sentinel.stop();
    throw error;
  }
  return sentinel;
}

// ---- NATS cluster ---------------------------------------------------------------------------------------

export interface NatsClusterNode extends ClusterNode {
  /** server_name, unique in the cluster (JetStream's clustering needs one). */
  readonly name: string;
  readonly clusterPort: number;
  /** HTTP monitoring port (/healthz, /jsz, /routez). */
  readonly monitorPort: number;
}

export interface NatsCluster {
  readonly nodes: readonly NatsClusterNode[];
  /** Every server's URL, comma separated: the NATS_URL of a deployable. */
  readonly url: string;
  /** The variables a deployable under test takes to use this cluster (JETSTREAM_REPLICAS: one copy per server). */
  readonly env: { NATS_URL: string; JETSTREAM_REPLICAS: string };
  /** SIGKILLs the server; its JetStream store stays on disk for `restart`. */
  kill(node: NatsClusterNode | number): Promise<void>;
  /** Starts the server again (killing it first if it runs), then waits until the cluster is ready. */
  restart(node: NatsClusterNode | number): Promise<void>;
  /**
   * Waits until every running server is routed to the others and answers its readiness check
   * (`/healthz?js-server-only=true`: serving, JetStream on, current with the meta leader), as the NATS Helm
   * chart's readiness probe does.
   */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** One answer of the server's `/healthz` with the given check (see `NatsHealthCheck`); `ok` on a 200. */
  health(node: NatsClusterNode | number, check: NatsHealthCheck): Promise<{ ok: boolean; error?: string }>;
  /** Waits until the server's full `/healthz` answers 200 once: each stream and consumer it holds current. */
  waitUntilAssetsCurrent(node: NatsClusterNode | number, timeoutMs?: number): Promise<void>;
  /** Stops every server and deletes their stores. */
  stop(): Promise<void>;
}

/**
 * The `/healthz` checks of nats-server, as the NATS Helm chart uses them: `enabled`
 * (`?js-enabled-only=true`, its liveness probe: serving, JetStream on), `server` (`?js-server-only=true`, its
 * readiness probe: also current with the JetStream meta leader), `full` (no parameter, its startup probe: also
 * every stream and consumer replica on the server current). `full` is an instant's view: in nats-server 2.9 a
 * follower replica counts as current only while it has applied all it committed and has heard from its leader
 * within 2 s, and a leader with nothing to replicate sends a heartbeat only after 1 s without sending, so
 * under load one of the many consumer replicas is often "not current" for a moment, on any server, restarted
 * or not. A readiness probe on it takes a healthy server out of service and back at random.
 */
export type NatsHealthCheck = 'enabled' | 'server' | 'full';

const healthzPaths: Record<NatsHealthCheck, string> = {
  enabled: '/healthz?js-enabled-only=true',
  server: '/healthz?js-server-only=true',
  full: '/healthz',
};

async function monitor<T>(port: number, path: string): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) });
  return (await response.json()) as T;
}

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  if (size < 3) throw new Error('a JetStream cluster needs at least 3 servers to survive losing one');
  const ports = await distinctFreePorts(size * 3);
  const root = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  const clusterName = `test-${root.slice(-6).replace(/[^a-zA-Z0-9]/g, '')}`;
  const routes = Array.from({ length: size }, (_, index) => `nats://127.0.0.1:${ports[index * 3 + 1]}`);
  const nodes = Array.from({ length: size }, (_, index) => {
    const [port, clusterPort, monitorPort] = ports.slice(index * 3, index * 3 + 3) as [number, number, number];
    const name = `n${index + 1}`;
    const dir = join(root, name);
    mkdirSync(dir);
    const args = [
      ...['-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort), '--server_name', name],
      ...['-js', '-sd', join(dir, 'jetstream')],
      ...['--cluster_name', clusterName, '--cluster', routes[index] as string],
      ...['--routes', routes.filter((_, other) => other !== index).join(',')],
    ];
    return Object.assign(nodeProcess(index, port, `nats://127.0.0.1:${port}`, dir, 'nats-server', args), {
      name,
      clusterPort,
      monitorPort,
    });
  });
  const running = () => nodes.filter((node) => node.running);

  const cluster: NatsCluster = {
    nodes,
    url: nodes.map((node) => node.url).join(','),
    env: { NATS_URL: nodes.map((node) => node.url).join(','), JETSTREAM_REPLICAS: String(Math.min(size, 3)) },
    kill: (node) => nodeOf(nodes, node).kill(),
    async restart(node) {
      const target = nodeOf(nodes, node);
      await target.kill();
      await target.start();
      await cluster.waitUntilReady();
    },
    waitUntilReady: (timeoutMs = 30_000) =>
      waitFor('the NATS cluster to be ready', timeoutMs, async () => {
        const up = running();
        for (const node of up) {
          const routez = await monitor<{ num_routes: number }>(node.monitorPort, '/routez');
          if (routez.num_routes < up.length - 1) return false;
          if (!(await cluster.health(node, 'server')).ok) return false;
        }
        return true;
      }),
    async health(node, check) {
      const answer = await monitor<{ status?: string; error?: string }>(nodeOf(nodes, node).monitorPort, healthzPaths[check]);
      return answer.status === 'ok' ? { ok: true } : { ok: false, error: answer.error ?? answer.status ?? 'no status' };
    },
    waitUntilAssetsCurrent: (node, timeoutMs = 60_000) =>
      waitFor(`every stream and consumer on ${nodeOf(nodes, node).name} to be current`, timeoutMs, async () => {
        const health = await cluster.health(node, 'full');
        if (!health.ok) throw new Error(health.error);
        return true;
      }),
    async stop() {
      await Promise.all(nodes.map((node) => node.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    await Promise.all(nodes.map((node) => node.start()));
    await cluster.waitUntilReady();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
