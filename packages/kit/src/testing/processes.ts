import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';

/** Resolves once something accepts TCP connections on the loopback port; fails if the child exits first or after `timeoutMs`. */
export async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    }).catch(() => false);
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends the signal and waits for the exit; nothing if the child is gone already. */
export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export function isRunning(child: ChildProcess | undefined): child is ChildProcess {
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Tracks a server the test started, so that a test process that ends without stopping it (a failed
 * `before`, an uncaught error) does not leave it running: the exit hook SIGKILLs whatever is left.
 */
export function ownChild(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const left of children) left.kill('SIGKILL');
    });
  }
  return child;
}
