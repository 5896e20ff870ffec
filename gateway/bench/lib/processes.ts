// Runs deployables for the bench as they run in production: each its own process, compiled JavaScript
// (`npm run build`, what the images run), not TypeScript through tsx. Reads how much CPU each one spends,
// so a figure can say where the time went and not only how many requests got through.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const running = new Set<BenchProcess>();
// A bench that fails halfway must not leave servers behind, those still starting included.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** A server started elsewhere (nginx) is killed with the others if the bench fails. */
export function killOnExit(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export interface BenchProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** User plus system CPU time the process has used so far, in ms; undefined where /proc is missing. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

// BENCH_PORTS=17500-17799: take ports from that range only (a shared machine where each user has its own),
// in turn, so that two servers started together are not handed the same one. Otherwise any free port.
const portRange = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
let nextInRange = Number(portRange?.[1]);

// A port the kernel may hand out as the local end of an outgoing connection (its ephemeral range) can be
// taken between the check below and the server's listen, which then fails with EADDRINUSE.
function ephemeralPorts(): [number, number] | undefined {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low && high ? [low, high] : undefined;
  } catch {
    return undefined; // not Linux
  }
}
const ephemeral = ephemeralPorts();
if (portRange && ephemeral && Number(portRange[1]) <= ephemeral[1] && Number(portRange[2]) >= ephemeral[0]) {
  console.warn(
    `BENCH_PORTS=${process.env.BENCH_PORTS} overlaps the kernel's ephemeral ports (${ephemeral.join('-')}): a server may find its port taken; prefer a range below ${ephemeral[0]}.`,
  );
}

async function listensOn(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return undefined;
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return address === null || typeof address === 'string' ? undefined : address.port;
}

export async function freePort(): Promise<number> {
  if (!portRange) {
    const port = await listensOn(0);
    if (port === undefined) throw new Error('no port');
    return port;
  }
  // Each candidate is taken before the await, so that calls made together try different ports.
  while (nextInRange <= Number(portRange[2])) {
    const candidate = nextInRange++;
    if ((await listensOn(candidate)) !== undefined) return candidate;
  }
  throw new Error(`no free port left in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU ms used so far by every process whose command name is `name` (e.g. all Postgres backends). */
export function cpuMsOfCommand(name: string): number | undefined {
  try {
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === name) total += cpuMsOf(Number(entry)) ?? 0;
      } catch {
        // the process ended meanwhile
      }
    }
    return total;
  } catch {
    return undefined;
  }
}

export function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The command name (field 2) is parenthesised and may hold spaces; utime and stime follow it as the
    // 12th and 13th fields.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
}

/**
 * CPU time the whole machine has spent busy so far, in ms (every process: the load generator, Postgres,
 * Redis and NATS included); undefined where /proc is missing.
 */
export function machineBusyMs(): number | undefined {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number) as number[];
    if (idle === undefined || iowait === undefined) return undefined;
    return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
}

/** Compiles the given workspaces (and what they import) to `dist/`, as the Dockerfile does. */
export function buildWorkspaces(workspaces: string[]): void {
  const args = ['run', 'build', ...workspaces.flatMap((workspace) => ['-w', workspace])];
  const result = spawnSync('npm', args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed`);
}

export interface StartOptions {
  /** A given port (a process restarted where its clients expect it); a free one otherwise. */
  port?: number;
  /** Appends the process's stdout and stderr there, at `logLevel` (default `warn`); otherwise silent. */
  logFile?: string;
  logLevel?: string;
}

/**
 * Starts a compiled entry point (a deployable's `dist/main.js`, or a bench server) on a free port and waits
 * until `probePath` answers 200.
 */
export async function startProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  probePath = '/readyz',
  options: StartOptions = {},
): Promise<BenchProcess> {
  const port = options.port ?? (await freePort());
  // BENCH_PROFILE_DIR: each server writes V8 CPU profiles there when it stops (open them in Chrome DevTools).
  const profileDir = process.env.BENCH_PROFILE_DIR;
  // A folder per server: a worker thread writes its own profile.
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}/${name.replaceAll(' ', '-')}-${port}`] : [];
  const log = options.logFile ? openSync(options.logFile, 'a') : undefined;
  const child = spawn(process.execPath, [...profile, entry], {
    cwd: root,
    stdio: log === undefined ? ['ignore', 'inherit', 'inherit'] : ['ignore', log, log],
    env: {
      ...process.env,
      // The gateway's metrics on a port the system picks: several replicas run side by side here.
      METRICS_PORT: '0',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: options.logFile ? (options.logLevel ?? 'warn') : 'silent',
    },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (log !== undefined) closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`))));
  exited.catch(() => {});
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) await exited;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer ${probePath} within 60 s`);
    }
    const ok = await fetch(url + probePath, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const server: BenchProcess = {
    name,
    url,
    child,
    cpuMs: () => cpuMsOf(child.pid),
    async stop() {
      running.delete(server);
      if (child.exitCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
  running.add(server);
  return server;
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}
