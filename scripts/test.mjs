#!/usr/bin/env node
// Runs every test file with node's test runner, after making sure Postgres, Redis and NATS answer.
// Usage: npm test [-- path-filter …]   e.g. npm test -- gateway   or   npm test -- services/leads/test/leads.int.test.ts
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const skipDirs = new Set(['node_modules', 'dist', 'generated', '.git']);

function findTests(dir, found = []) {
  for (const entry of readdirSync(dir)) {
    if (skipDirs.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) findTests(path, found);
    else if (/\.test\.ts$/.test(entry) && path.includes('/test/')) found.push(relative(root, path));
  }
  return found;
}

const filters = process.argv.slice(2);
const files = findTests(root)
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

// Prisma clients are generated, not committed: make them on a fresh clone so `npm ci && npm test` works.
const schemaDirs = ['gateway', ...readdirSync(join(root, 'services')).map((name) => join('services', name))];
const ungenerated = schemaDirs.filter(
  (dir) => existsSync(join(root, dir, 'prisma/schema.prisma')) && !existsSync(join(root, dir, 'src/generated/prisma')),
);
if (ungenerated.length > 0) {
  const generate = spawn('npx', ['voice-db', 'generate'], { cwd: root, stdio: 'inherit' });
  const generated = await new Promise((resolve) => generate.on('exit', resolve));
  if (generated !== 0) process.exit(1);
}

const urls = {
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/voice',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
};

/** Resolves true when something accepts a TCP connection at the URL's host and port. */
function answers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), timeout: 2_000 });
    socket.once('connect', () => resolve(true) || socket.destroy());
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(false) || socket.destroy());
  });
}

// The machine's services are used when their URLs answer. Otherwise, where a Docker engine exists,
// testcontainers starts them for this run (and removes them when this process ends).
const missing = [];
for (const [name, url] of Object.entries(urls)) if (!(await answers(url))) missing.push(name);
const serviceEnv = {};
if (missing.length > 0) {
  const { getContainerRuntimeClient, GenericContainer, Wait } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    console.error(
      `Not reachable: ${missing.map((name) => `${name}=${urls[name]}`).join(', ')}; no Docker engine for testcontainers either.`,
    );
    console.error('Start them on this machine (README.md, "Postgres, Redis and NATS on the host") or set the URLs.');
    process.exit(1);
  }
  if (missing.includes('DATABASE_URL')) {
    const container = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    serviceEnv.DATABASE_URL = `postgresql://postgres@${container.getHost()}:${container.getMappedPort(5432)}/voice`;
  }
  if (missing.includes('REDIS_URL')) {
    const container = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
    serviceEnv.REDIS_URL = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
  }
  if (missing.includes('NATS_URL')) {
    const container = await new GenericContainer('nats:2-alpine').withCommand(['-js']).withExposedPorts(4222).start();
    serviceEnv.NATS_URL = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
  }
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// The usual reporter on stdout (node's default: spec on a terminal, TAP otherwise), and beside it each
// file's duration to a file, for the slowest ones printed at the end: the suite's time is a figure to watch.
const durationsDir = mkdtempSync(join(tmpdir(), 'test-durations-'));
const durationsFile = join(durationsDir, 'files.jsonl');
const reporters = [
  ...['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout'],
  ...['--test-reporter', join(root, 'scripts/file-durations.mjs'), '--test-reporter-destination', durationsFile],
];
// --test-timeout bounds each file as a whole: node 20 runs a file in a process of its own and applies the
// limit to that process (the tests inside get none of their own). So it is sized for a file that hangs, not
// for one test: on a loaded 2-core machine a file that starts a platform takes two minutes (approvals-pages
// 113 s at load 30, most of it loading and starting the services), and 120 s cancelled such files.
const fileTimeoutMs = 600_000;
/** What the whole suite may take on a shared 2-core machine; the slowest files say where it goes. */
const suiteBudgetMs = 15 * 60_000;
const started = performance.now();
const child = spawn(
  process.execPath,
  [
    '--conditions=source',
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${fileTimeoutMs}`,
    ...reporters,
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, ...serviceEnv } },
);
const code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
printSummary(performance.now() - started);
rmSync(durationsDir, { recursive: true, force: true });
process.exit(code);

/** The ten slowest files, the whole run's time, and every failed test with the start of its error. */
function printSummary(totalMs) {
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  let records = [];
  try {
    records = readFileSync(durationsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    // No file: the runner ended before reporting (it was killed); the total is still worth printing.
  }
  const failures = records.filter((record) => record.failed).map((record) => record.failed);
  const durations = records.filter((record) => !record.failed).sort((a, b) => b.ms - a.ms);
  const over = totalMs > suiteBudgetMs ? `, over the ${suiteBudgetMs / 60_000}-minute budget` : '';
  const lines = [`# ${files.length} files in ${seconds(totalMs)} (TEST_CONCURRENCY=${concurrency}${over})`];
  if (durations.length > 0) lines.push('# slowest files:');
  for (const { file, ms } of durations.slice(0, 10)) lines.push(`#   ${seconds(ms).padStart(8)}  ${relative(root, file)}`);
  if (failures.length > 0) lines.push(`# failed (${failures.length}):`);
  for (const { file, name, error } of failures) {
    lines.push(`#   ${relative(root, file)}: ${name}`, ...error.split('\n').map((line) => `#       ${line}`));
  }
  console.log(lines.join('\n'));
}
