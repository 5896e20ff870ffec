// `npm run chaos [-- fault…]`: the stack from the compiled JavaScript (`npm run build` first) with its own
// Postgres, Redis and NATS, two gateway replicas and one process of each service, all NODE_ENV=production
// with every secret set; then, for each fault under steady load across both replicas, what the clients saw
// (requests, statuses, slowest answer, recovery) and what was lost or duplicated (audit records, events,
// webhook deliveries). Figures only, nothing asserts: not part of CI or `npm test`.
//
//   npm run chaos                       every fault, in order
//   npm run chaos -- nats-60 redis      those faults only
//   --long-seconds=20                   shortens the 60-second outages (trials only; the default is the issue's)
//   --skip-build                        use dist/ as it is
//   --keep                              keep the temporary folder (servers' logs) and print where it is
//   CHAOS_RATE=30                       requests per second; BENCH_PORTS=17500-17799 takes every port from that range
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../gateway/bench/lib/processes.js';
import { type Fault, faultTable, runFault } from './chaos/fault.js';
import { Load, operations } from './chaos/load.js';
import { NatsServer, PostgresServer, RedisServer } from './chaos/servers.js';
import { buildStack, startStack } from './chaos/stack.js';

const { values: flags, positionals: wanted } = parseArgs({
  allowPositionals: true,
  options: { 'long-seconds': { type: 'string' }, 'skip-build': { type: 'boolean' }, keep: { type: 'boolean' } },
});
const longMs = Number(flags['long-seconds'] ?? 60) * 1000;
const ratePerSecond = Number(process.env.CHAOS_RATE ?? 30);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---- backing servers, in a folder of their own ----------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'voice-chaos-'));
const postgres = new PostgresServer(await freePort(), dir);
const redis = new RedisServer(await freePort(), dir);
const nats = new NatsServer(await freePort(), dir);
// Whatever happens (an error, Ctrl-C), nothing is left running or on disk. The deployables are SIGKILLed by
// the bench helper's own exit handler.
process.once('exit', () => {
  redis.killNow();
  nats.killNow();
  postgres.stopNow();
  if (!flags.keep) rmSync(dir, { recursive: true, force: true });
});
// `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx), and a second
// signal without a handler would end it before the exit handler has run.
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const startedAt = Date.now();
let builtAt = startedAt;
try {
  if (!flags['skip-build']) {
    say('building (npm run build) …');
    buildStack();
  }
  builtAt = Date.now();

  say(`starting Postgres :${postgres.port}, Redis :${redis.port}, NATS :${nats.port} in ${dir}`);
  await postgres.init();
  await redis.start();
  await nats.start();

  const stack = await startStack({
    dir,
    backing: { DATABASE_URL: postgres.url, REDIS_URL: redis.url, NATS_URL: nats.url },
    gateways: 2,
    serviceReplicas: 1,
    quota: 2_000_000_000,
    quotaCounted: (orgId) => redis.sumOf(`*q:{${orgId}}:m:*`),
  });
  say('migrating (npm run db:migrate), starting telephony, leads, recall, mcp, webhooks and two gateways (dist/, NODE_ENV=production) …');
  await stack.boot('Chaos');
  const { gateways, key } = stack;
  say(`organization ${stack.org.id}, webhook endpoint at ${stack.receiverUrl}`);

  let phoneSequence = 0;
  const nextPhone = () => `+1${2_000_000_000 + phoneSequence++}`;

  const faults: Fault[] = [
    ...[false, true].map((aof) => ({
      name: aof ? 'redis-aof' : 'redis',
      title: `Redis SIGKILLed and restarted ${aof ? 'with AOF (appendfsync everysec)' : 'without AOF'}, down 3 s`,
      prepare: () => redis.setAof(aof),
      inject: async () => {
        await redis.kill();
        await sleep(3_000);
        await redis.start();
      },
    })),
    ...[5_000, longMs].map((ms, index) => ({
      name: index === 0 ? 'nats-5' : 'nats-60',
      title: `NATS SIGKILLed for ${seconds(ms)}`,
      inject: async () => {
        await nats.kill();
        await sleep(ms);
        await nats.start();
      },
    })),
    {
      name: 'postgres-10',
      title: 'Postgres stopped (fast shutdown) for 10 s',
      inject: async () => {
        await postgres.stop();
        await sleep(10_000);
        await postgres.start();
      },
    },
    {
      name: 'service-kill',
      title: 'leads service SIGKILLed and restarted',
      inject: () => stack.restartProcess('leads'),
    },
    {
      name: 'worker-kill',
      title: 'webhooks service (BullMQ delivery worker) SIGKILLed and restarted',
      inject: () => stack.restartProcess('webhooks'),
    },
    {
      name: 'receiver-60',
      title: `webhook receiver down for ${seconds(longMs)}`,
      inject: async () => {
        await stack.stopReceiver();
        await sleep(longMs);
        await stack.startReceiver();
      },
    },
  ];
  const unknown = wanted.filter((name) => !faults.some((fault) => fault.name === name));
  if (unknown.length > 0) throw new Error(`unknown fault ${unknown.join(', ')}; faults: ${faults.map((fault) => fault.name).join(', ')}`);
  const selected = wanted.length === 0 ? faults : faults.filter((fault) => wanted.includes(fault.name));

  const loadFor = (tag: string) =>
    new Load(gateways, key, operations(tag, nextPhone), { ratePerSecond, maxInFlight: 200, timeoutMs: 30_000 });
  say(`load: ${ratePerSecond} requests/s over both gateways (calls list 4, leads list 2, lead create 3, DNC add 1 in 10)`);
  const warmUp = loadFor('chaos-warm-up');
  warmUp.start();
  await sleep(5_000);
  await warmUp.stop();

  const rows: string[] = [];
  for (const fault of selected) {
    const tag = `chaos-${fault.name}`;
    rows.push(await runFault(stack, fault, loadFor(tag), tag, say));
  }

  say(`\n${ratePerSecond} requests/s over two gateway replicas; lost: missing/expected (dup: received more than once)\n`);
  for (const line of faultTable) say(line);
  for (const row of rows) say(row);
  say(`\ntook ${seconds(Date.now() - startedAt)}, of which the build ${seconds(builtAt - startedAt)}`);

  // The deployables stop cleanly; the exit handler removes the rest (the fakes and connections go with this process).
  await stack.stop();
  if (flags.keep) say(`\nlogs kept in ${dir}`);
  process.exit(0);
} catch (error) {
  process.stderr.write(`chaos: ${(error as Error).stack ?? error}\n`);
  if (flags.keep) process.stderr.write(`logs kept in ${dir}\n`);
  process.exit(1);
}
