// `npm run bench -- startup`: from process start to the first 200 of `/readyz`, for every deployable (the
// gateway and each service under services/), run as deployed: compiled JavaScript (`npm run build`, skipped with
// BENCH_SKIP_BUILD=1), NODE_ENV=production with every secret set, against the running Postgres, Redis and NATS
// (a fresh test database, Redis prefix and NATS namespace). Each deployable is started BENCH_ROUNDS times
// (default 5), the order rotated each round, and stopped (SIGTERM) before the next one starts; the figure is
// the median. `/readyz` is polled every 5 ms. The target is printed beside each figure; nothing asserts it.
// BENCH_STARTUP=gateway,webhooks starts only those. BENCH_COMPARE_ROOT=<another checkout, built> starts each
// deployable from there too, right after this checkout's, in every round, and prints the two medians and the
// median of the rounds' ratios: a before and an after under the same load. BENCH_NODE_ARGS, Node options put
// before the entry (`--cpu-prof --cpu-prof-dir=/tmp/startup-profiles`), to profile the starts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createTestContext } from '@voice/kit/testing';
import { buildWorkspaces, freePort } from '../../gateway/bench/lib/processes.js';
import { startMailServer } from '../../services/console/test/support/smtp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const targetMs = 2_000;
const services = readdirSync(join(root, 'services')).sort();
const chosen = process.env.BENCH_STARTUP?.split(',').map((name) => name.trim());
const compareRoot = process.env.BENCH_COMPARE_ROOT;
const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const deployables = [['gateway', 'gateway/dist/main.js'], ...services.map((name) => [name, `services/${name}/dist/main.js`])].filter(
  ([name]) => !chosen || chosen.includes(name as string),
) as Array<[string, string]>;

if (process.env.BENCH_SKIP_BUILD !== '1') {
  buildWorkspaces(['proto', 'packages/kit', 'gateway', ...services.map((name) => `services/${name}`)]);
}

const ctx = await createTestContext();
const mail = await startMailServer();
const ports = Object.fromEntries(await Promise.all(deployables.map(async ([name]) => [name, await freePort()] as const)));
// Every secret production requires, set to test values; the gateway's upstreams are the services' ports.
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  ...ctx.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  METRICS_PORT: '0',
  INTERNAL_SIGNING_SECRET: randomBytes(32).toString('hex'),
  WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  OPENAI_API_KEY: `sk-${randomBytes(16).toString('hex')}`,
  ANTHROPIC_API_KEY: `sk-ant-${randomBytes(16).toString('hex')}`,
  SMTP_URL: mail.url,
  TELEPHONY_CARRIER: 'sandbox',
  ...Object.fromEntries(services.map((name) => [`${name.toUpperCase()}_URL`, `http://127.0.0.1:${ports[name] ?? 1}`])),
};

/**
 * The CPU time (user and system) a process has used so far, in ms, from /proc (Linux; NaN elsewhere). On a
 * shared machine the wall time to ready is mostly waiting for a core; the CPU time is what the start itself does.
 */
function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in ticks of 10 ms.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Starts one deployable: the milliseconds from its spawn to `/readyz` answering 200, and its CPU time by then; stops it. */
async function timeStart(name: string, entry: string, from = root): Promise<{ wallMs: number; cpuMs: number }> {
  const port = ports[name] as number;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, entry], {
    cwd: from,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...env, PORT: String(port) },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr.slice(-2_000)}`);
      if (performance.now() - started > 60_000) throw new Error(`${name} not ready within 60 s`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) return { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid) };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    if (child.exitCode === null) {
      const gone = once(child, 'exit');
      child.kill('SIGTERM');
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }
}

/** Node itself starting and exiting: the part of every figure no deployable can save. */
function nodeAloneMs(): number {
  const started = performance.now();
  execFileSync(process.execPath, ['-e', '']);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;
const times = new Map<string, number[]>(deployables.map(([name]) => [name, []]));
const compared = new Map<string, number[]>(deployables.map(([name]) => [name, []]));
const cpu = new Map<string, number[]>(deployables.map(([name]) => [name, []]));
const bare: number[] = [];
const loads: number[] = [];
try {
  for (let round = 0; round < rounds; round++) {
    loads.push(loadavg()[0] as number);
    bare.push(nodeAloneMs());
    const order = deployables.map((_, index) => deployables[(index + round) % deployables.length] as [string, string]);
    for (const [name, entry] of order) {
      const start = await timeStart(name, entry);
      times.get(name)?.push(start.wallMs);
      cpu.get(name)?.push(start.cpuMs);
      if (compareRoot) compared.get(name)?.push((await timeStart(name, entry, compareRoot)).wallMs);
    }
    console.log(`round ${round + 1}: ${order.map(([name]) => `${name} ${Math.round(times.get(name)?.at(-1) ?? 0)} ms`).join(', ')}`);
  }
  console.log(`\nprocess start → /readyz 200, median of ${rounds} (target < ${targetMs} ms each):`);
  for (const [name, values] of times) {
    const value = median(values);
    console.log(
      `  ${name.padEnd(10)} ${String(Math.round(value)).padStart(5)} ms  ${value < targetMs ? 'met' : 'NOT met'}  (min ${Math.round(Math.min(...values))}, max ${Math.round(Math.max(...values))}; CPU to ready ${Math.round(median(cpu.get(name) ?? []))} ms)`,
    );
  }
  console.log(`  node -e '' ${String(Math.round(median(bare))).padStart(5)} ms  (Node alone, for reference)`);
  if (compareRoot) {
    console.log(
      `\nagainst ${compareRoot}, started right after each start of this checkout (median; median of the rounds' ratios this/that):`,
    );
    for (const [name, values] of times) {
      const other = compared.get(name) ?? [];
      const ratios = values.map((value, index) => value / (other[index] ?? Number.NaN));
      console.log(
        `  ${name.padEnd(10)} ${String(Math.round(median(values))).padStart(5)} ms against ${String(Math.round(median(other))).padStart(5)} ms: ${median(ratios).toFixed(2)}`,
      );
    }
  }
  console.log(`load average (1 min) at each round: ${loads.map((load) => load.toFixed(2)).join(', ')}`);
  console.log(execFileSync('uptime', { encoding: 'utf8' }).trim());
} finally {
  await mail.close();
  await ctx.cleanup();
}
