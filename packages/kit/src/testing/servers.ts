import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownChild, stopChild, waitForPort } from './processes.js';

/**
 * Servers a test owns, for the faults it must cause itself (a Redis that restarts without its data, a NATS
 * that is gone): the shared servers other test files use are never stopped.
 */

/**
 * A free loopback port: from `TEST_OWN_PORTS` (`first-last`) when set, where a machine hands each user a
 * range, otherwise one below the system's ephemeral range. The port is free when chosen and bound later (a
 * platform's gateway listens once its services have started, seconds later on a loaded machine); a port of
 * the ephemeral range may be handed in between to any `listen(0)` or outgoing connection of another process,
 * which made a gateway's listen fail with EADDRINUSE while other work ran beside the suite. Below that range
 * only another chooser like this one can take it, and each starts at a random place.
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.TEST_OWN_PORTS ?? '');
  const [first, last] = range ? [Number(range[1]), Number(range[2])] : [lowestChosenPort, ephemeralPortsStart() - 1];
  const count = last - first + 1;
  // Start at a random place in the range, so test files running in parallel rarely race for one port.
  const start = Math.floor(Math.random() * count);
  for (let i = 0; i < count; i++) {
    const port = await listensOn(first + ((start + i) % count));
    if (port !== undefined) return port;
  }
  throw new Error(range ? `no free port in TEST_OWN_PORTS=${process.env.TEST_OWN_PORTS}` : `no free port in ${first}-${last}`);
}

/** Where ports are chosen from when no range is given: above the well-known services' usual ports. */
const lowestChosenPort = 10_000;

/** The first port the system hands out on its own (Linux: /proc/sys/net/ipv4/ip_local_port_range), else IANA's 49152. */
function ephemeralPortsStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(start) && start > lowestChosenPort) return start;
  } catch {
    // Not Linux: the IANA range below.
  }
  return 49_152;
}

/** The port when something can listen on it on loopback now, else undefined. */
function listensOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

export interface OwnServer {
  url: string;
  port: number;
  /** Kills the server at once (SIGKILL): whatever it held in memory is gone. */
  kill(): Promise<void>;
  /** Stops it cleanly (SIGTERM), as an orderly outage does; what it keeps on disk stays for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port; nothing if it runs. */
  start(): Promise<void>;
  /** Kills it and starts it again: for Redis without persistence, a restart that lost every key. */
  restart(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and commands go unanswered, as on a hung host, until `resume`. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  close(): Promise<void>;
}

function ownServer(name: string, command: string, args: (port: number, dir: string) => string[], protocol: string) {
  return async (): Promise<OwnServer> => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), `${name}-`));
    let child: ChildProcess | undefined;
    const server: OwnServer = {
      url: `${protocol}://127.0.0.1:${port}`,
      port,
      async start() {
        if (child && child.exitCode === null && child.signalCode === null) return;
        child = ownChild(spawn(command, args(port, dir), { stdio: 'ignore' }));
        await waitForPort(port, child, name);
      },
      kill: () => stopChild(child, 'SIGKILL'),
      stop: () => stopChild(child, 'SIGTERM'),
      async restart() {
        await server.kill();
        await server.start();
      },
      pause: () => void child?.kill('SIGSTOP'),
      resume: () => void child?.kill('SIGCONT'),
      async close() {
        child?.kill('SIGCONT');
        await stopChild(child, 'SIGTERM');
        rmSync(dir, { recursive: true, force: true });
      },
    };
    await server.start();
    return server;
  };
}

/** A redis-server of the test's own, without persistence: a restart loses every key. */
export const startOwnRedis = ownServer(
  'redis',
  'redis-server',
  (port, dir) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
  'redis',
);

/** A nats-server of the test's own, with JetStream on a file store that outlives its restarts, as a production server's does. */
export const startOwnNats = ownServer(
  'nats',
  'nats-server',
  (port, dir) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
  'nats',
);
