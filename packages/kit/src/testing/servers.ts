import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
 * range, otherwise one the system picks.
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.TEST_OWN_PORTS ?? '');
  const candidates = range ? Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i) : [0];
  // Start at a random place in the range, so test files running in parallel rarely race for one port.
  const start = Math.floor(Math.random() * candidates.length);
  for (let i = 0; i < candidates.length; i++) {
    const port = await new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(candidates[(start + i) % candidates.length], '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
      });
    });
    if (port !== undefined) return port;
  }
  throw new Error(`no free port in TEST_OWN_PORTS=${process.env.TEST_OWN_PORTS}`);
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
