import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Bus } from '../nats.js';

/** A nats-server with JetStream that a test owns, so it can stop and restart it without touching the shared one. */
export interface OwnNatsServer {
  url: string;
  /** Stops the server (SIGTERM) and waits for it to exit. Its JetStream store stays for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store, and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its store. */
  close(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Starts `nats-server -js` on 127.0.0.1:`port` (a port from the test's own range) with a fresh store. */
export async function startOwnNatsServer(port: number): Promise<OwnNatsServer> {
  const storeDir = mkdtempSync(join(tmpdir(), 'nats-test-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    child = started;
    let exited = false;
    started.once('exit', () => {
      exited = true;
    });
    for (let attempt = 0; !(await accepts(port)); attempt++) {
      if (exited || attempt > 200) throw new Error(`nats-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    stop,
    start,
    async close() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** How many events the bus's stream holds: a publish JetStream dropped as a duplicate adds none. */
export async function storedEventCount(bus: Bus): Promise<number> {
  const manager = await jetstreamManager(bus.connection);
  return (await manager.streams.info(bus.streamName)).state.messages;
}
