// The chaos run's own Postgres, Redis and NATS: each on a loopback port, with its data in a temporary
// folder, so that the run can kill and restart them without touching the servers anyone else uses.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, closeSync, openSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const postgresBin = process.env.CHAOS_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once something accepts TCP connections on the port; fails after `timeoutMs`. */
export async function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not open port ${port} within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A server run as a child process of this one: started, SIGKILLed and started again with the same arguments. */
abstract class ChildServer {
  protected child: ChildProcess | undefined;
  constructor(
    readonly port: number,
    protected readonly logFile: string,
  ) {}
  protected abstract command(): [string, string[]];
  protected async ready(): Promise<void> {
    await waitForPort(this.port, this.command()[0]);
  }
  async start(): Promise<void> {
    const [file, args] = this.command();
    const log = openSync(this.logFile, 'a');
    this.child = spawn(file, args, { stdio: ['ignore', log, log] });
    closeSync(log);
    await this.ready();
  }
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child);
    this.child = undefined;
  }
  /** For the exit handler: synchronous, best effort. */
  killNow(): void {
    this.child?.kill('SIGKILL');
  }
}

export class RedisServer extends ChildServer {
  /** Append-only file on (`appendfsync everysec`): what a restart after SIGKILL keeps. */
  private aof = false;
  constructor(
    port: number,
    private readonly dir: string,
  ) {
    super(port, join(dir, 'redis.log'));
  }
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  protected command(): [string, string[]] {
    // No RDB snapshots: without AOF a restart starts empty, as a cache-only Redis does.
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''];
    return ['redis-server', [...args, '--appendonly', this.aof ? 'yes' : 'no', '--appendfsync', 'everysec']];
  }
  protected override async ready(): Promise<void> {
    await waitForPort(this.port, 'redis-server');
    for (let i = 0; i < 100 && this.cli('ping') !== 'PONG'; i++) await sleep(100);
  }
  /** The sum of the integer values of the keys matching a pattern (SCAN, then GET each). */
  sumOf(pattern: string): number {
    const keys = this.cli('--scan', '--pattern', pattern).split('\n').filter(Boolean);
    return keys.reduce((sum, key) => sum + Number(this.cli('get', key)), 0);
  }
  private cli(...args: string[]): string {
    return spawnSync('redis-cli', ['-p', String(this.port), ...args], { encoding: 'utf8' }).stdout.trim();
  }
  /** Turns the append-only file on or off in the running server, and for its restarts; waits for the rewrite. */
  async setAof(on: boolean): Promise<void> {
    this.aof = on;
    this.cli('config', 'set', 'appendonly', on ? 'yes' : 'no');
    this.cli('config', 'set', 'appendfsync', 'everysec');
    // Turning it on writes the whole data set once (a rewrite); only then does the file hold it.
    for (let i = 0; i < 300; i++) {
      const info = this.cli('info', 'persistence');
      if (!/aof_rewrite_in_progress:1|aof_rewrite_scheduled:1/.test(info)) return;
      await sleep(100);
    }
  }
}

export class NatsServer extends ChildServer {
  constructor(
    port: number,
    private readonly dir: string,
  ) {
    super(port, join(dir, 'nats.log'));
  }
  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }
  protected command(): [string, string[]] {
    return ['nats-server', ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', join(this.dir, 'jetstream')]];
  }
}

/**
 * A Postgres cluster of its own (initdb), run with pg_ctl. Postgres refuses to run as root, so as root the
 * commands run as the `postgres` user (runuser), which then owns the folder.
 */
export class PostgresServer {
  private readonly data: string;
  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {
    this.data = join(dir, 'data');
  }
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/voice`;
  }
  private run(command: string, args: string[]): void {
    const asRoot = process.getuid?.() === 0;
    const file = join(postgresBin, command);
    const result = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', file, ...args], { encoding: 'utf8' })
      : spawnSync(file, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  }
  async init(): Promise<void> {
    if (process.getuid?.() === 0) {
      const user = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
      const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
      chownSync(this.dir, Number(user.stdout), Number(group.stdout));
    }
    this.run('initdb', ['-D', this.data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await this.start();
    this.run('createdb', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', 'voice']);
  }
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
    this.run('pg_ctl', ['-D', this.data, '-o', options, '-l', join(this.dir, 'postgres.log'), '-w', 'start']);
  }
  /** A clean, fast stop: open connections are ended, as in a failover or a restart for maintenance. */
  async stop(): Promise<void> {
    this.run('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']);
  }
  /** For the exit handler: synchronous, best effort. */
  stopNow(): void {
    try {
      this.run('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // not running
    }
  }
}
