import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
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
  stop(): Promise<void>;
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
    stop: () => stopChild(child, 'SIGTERM'),
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
  /** Waits until every running server is routed to the others, sees a JetStream meta leader and reports healthy. */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** Stops every server and deletes their stores. */
  stop(): Promise<void>;
}

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
          const jsz = await monitor<{ meta_cluster?: { leader?: string } }>(node.monitorPort, '/jsz');
          if (!jsz.meta_cluster?.leader) return false;
          const health = await monitor<{ status?: string }>(node.monitorPort, '/healthz');
          if (health.status !== 'ok') return false;
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
    await cluster.waitUntilReady();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
