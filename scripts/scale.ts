// `npm run scale`: the stack beyond one machine, on loopback. A Redis Cluster of three primaries with one
// replica each and a NATS cluster of three JetStream servers (kit's cluster harness, the one the tests use),
// an own Postgres, and the compiled stack (as `npm run chaos` starts it) with two gateway replicas and two
// replicas of each service, REDIS_MODE=cluster, JETSTREAM_REPLICAS=3. Under steady mixed load (REST reads
// and writes, MCP tool calls, webhooks to a local receiver): a burst of 3,000 concurrent requests across both
// gateways on a key with a quota of 1,000; one NATS server SIGKILLed and brought back; the Redis primary that
// holds the organization's quota counters SIGKILLed (its replica promoted) and brought back. Figures only,
// nothing asserts: not part of CI or `npm test`.
//
//   npm run scale
//   --outage-seconds=15     how long each killed server stays down
//   --skip-build            use dist/ as it is
//   --keep                  keep the temporary folder (servers' logs) and print where it is
//   CHAOS_RATE=30           requests per second; BENCH_PORTS=17500-17799 takes every port from that range
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type NatsCluster, type RedisCluster, startNatsCluster, startRedisCluster } from '@voice/kit/testing';
import { faultTable, runFault } from './chaos/fault.js';
import { Load, mcpOperations, operations } from './chaos/load.js';
import { PostgresServer, waitForPort } from './chaos/servers.js';

// The harness takes its ports from TEST_OWN_PORTS, the processes this script starts from BENCH_PORTS: the upper
// half of BENCH_PORTS goes to the harness, the lower half to the rest, so the two never hand out one port.
const benchPorts = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? '');
if (benchPorts) {
  const [first, last] = [Number(benchPorts[1]), Number(benchPorts[2])];
  const middle = Math.floor((first + last) / 2);
  process.env.BENCH_PORTS = `${first}-${middle}`;
  process.env.TEST_OWN_PORTS = `${middle + 1}-${last}`;
}
// Imported once the range is split: the bench helper reads BENCH_PORTS when it loads.
const { freePort } = await import('../gateway/bench/lib/processes.js');
const { buildStack, startStack } = await import('./chaos/stack.js');

const { values: flags } = parseArgs({
  options: { 'outage-seconds': { type: 'string' }, 'skip-build': { type: 'boolean' }, keep: { type: 'boolean' } },
});
const outageMs = Number(flags['outage-seconds'] ?? 15) * 1000;
const ratePerSecond = Number(process.env.CHAOS_RATE ?? 30);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** How long a silent Redis node takes to be failed and its replica promoted (Redis's default is 15 s). */
const redisNodeTimeoutMs = 5_000;
const quotaTimeoutMs = 5_000;

const dir = mkdtempSync(join(tmpdir(), 'voice-scale-'));
const postgres = new PostgresServer(await freePort(), dir);
let redis: RedisCluster | undefined;
let nats: NatsCluster | undefined;
// The harness SIGKILLs its servers when this process exits; Postgres and the folder are this script's.
process.once('exit', () => {
  postgres.stopNow();
  if (!flags.keep) rmSync(dir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

/**
 * Restarts a killed NATS server and says what the NATS Helm chart's probes on it would have seen: readiness
 * (`/healthz?js-server-only=true`, on every server: `restart` waits for it), the full `/healthz` (its startup
 * probe: every stream and consumer replica on the server current) answering 200 a first time, and how often
 * the full `/healthz` answered 503 over the next 10 s. nats-server 2.9 reports a replica not current for a
 * moment whenever it lags its leader's last commit or heartbeat (see `NatsHealthCheck` in kit's cluster
 * harness), so a probe on the full check flaps under load on any server, restarted or not.
 */
async function natsProbesAfterRestart(cluster: NatsCluster, node: NatsCluster['nodes'][number]): Promise<string> {
  const restartedAt = Date.now();
  try {
    await cluster.restart(node);
  } catch (error) {
    return `NATS: ${node.name} back, but not ready (/healthz?js-server-only=true) within 30 s of its restart (${(error as Error).message.slice(0, 160)})`;
  }
  const ready = seconds(Date.now() - restartedAt);
  let firstCurrent = 'not within 60 s';
  try {
    await cluster.waitUntilAssetsCurrent(node);
    firstCurrent = seconds(Date.now() - restartedAt);
  } catch {}
  let answers = 0;
  const failures = new Map<string, number>();
  for (const until = Date.now() + 10_000; Date.now() < until; answers++) {
    const health = await cluster.health(node, 'full').catch((error: Error) => ({ ok: false, error: error.message }));
    if (!health.ok) failures.set(health.error ?? '', (failures.get(health.error ?? '') ?? 0) + 1);
    await sleep(250);
  }
  const failed = [...failures.values()].reduce((sum, count) => sum + count, 0);
  const commonest = [...failures].sort((a, b) => b[1] - a[1])[0]?.[0];
  return (
    `NATS: ${node.name} ready (/healthz?js-server-only=true, the NATS Helm chart's readiness probe) ${ready} after its restart; ` +
    `its full /healthz (the chart's startup probe) first 200 ${firstCurrent} after; over the next 10 s ${failed} of ${answers} ` +
    `full /healthz answers were 503${commonest ? ` (e.g. ${commonest.slice(0, 120)})` : ''}`
  );
}

/** The sum of the integer values of the keys matching the pattern, over the cluster's primaries. */
async function sumOverPrimaries(pattern: string): Promise<number> {
  const cli = (port: number, ...args: string[]) =>
    spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
  let sum = 0;
  for (const node of (await redis?.primaries()) ?? []) {
    for (const key of cli(node.port, '--scan', '--pattern', pattern).split('\n').filter(Boolean)) sum += Number(cli(node.port, 'get', key));
  }
  return sum;
}

const startedAt = Date.now();
let builtAt = startedAt;
try {
  if (!flags['skip-build']) {
    say('building (npm run build) …');
    buildStack();
  }
  builtAt = Date.now();

  await postgres.init();
  redis = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1, nodeTimeoutMs: redisNodeTimeoutMs });
  nats = await startNatsCluster(3);
  say(`Postgres :${postgres.port} in ${dir}`);
  say(`Redis Cluster: 3 primaries, 1 replica each, cluster-node-timeout ${redisNodeTimeoutMs} ms, on ${redis.url}`);
  say(`NATS cluster: 3 JetStream servers on ${nats.url}`);
  const redisCluster = redis;
  const natsCluster = nats;

  const stack = await startStack({
    dir,
    backing: { DATABASE_URL: postgres.url, ...redisCluster.env, ...natsCluster.env },
    // The gateway fails closed (503 with Retry-After) when the quota call takes longer than QUOTA_TIMEOUT_MS
    // (450 ms by default). Two shared cores running 12 Node processes, 6 Redis and 3 NATS servers queue a
    // 3,000-request burst's calls for seconds, so the burst would measure this machine, not the quota: 5 s.
    settings: { QUOTA_TIMEOUT_MS: String(quotaTimeoutMs) },
    gateways: 2,
    serviceReplicas: 2,
    quota: 2_000_000_000,
    quotaCounted: (orgId) => sumOverPrimaries(`*q:{${orgId}}:m:*`),
  });
  say(`migrating, starting ${stack.names().join(', ')} (dist/, NODE_ENV=production) …`);
  await stack.boot('Scale');
  const { gateways, key, org } = stack;
  say(`organization ${org.id}, webhook endpoint at ${stack.receiverUrl}`);

  let phoneSequence = 0;
  const nextPhone = () => `+1${2_000_000_000 + phoneSequence++}`;
  const loadFor = (tag: string) =>
    new Load(gateways, key, [...operations(tag, nextPhone), ...mcpOperations(tag, nextPhone)], {
      ratePerSecond,
      maxInFlight: 200,
      timeoutMs: 30_000,
    });
  say(
    `load: ${ratePerSecond} requests/s over both gateways (in 13: calls list 4, leads list 2, lead create 3, DNC add 1, MCP list leads 2, MCP add DNC 1; each lead and DNC entry is an event and a webhook delivery)`,
  );
  const warmUp = loadFor('scale-warm-up');
  warmUp.start();
  await sleep(5_000);
  await warmUp.stop();

  // The quota burst: a key of its own with a monthly quota of 1,000, 3,000 requests at once, half to each gateway.
  let quotaLine = '';
  const burst = async () => {
    const limited = stack.createKey(org.id, 1_000);
    const answers = await Promise.all(
      Array.from({ length: 3_000 }, (_, index) =>
        fetch(`${gateways[index % gateways.length]}/api/v1/phone/calls?limit=1`, {
          headers: { authorization: `Bearer ${limited}` },
          signal: AbortSignal.timeout(60_000),
        }).then(
          async (response) => {
            await response.arrayBuffer();
            return String(response.status);
          },
          (error: Error) => (error.name === 'TimeoutError' ? 'timeout' : 'error'),
        ),
      ),
    );
    const counts = new Map<string, number>();
    for (const status of answers) counts.set(status, (counts.get(status) ?? 0) + 1);
    const accepted = answers.filter((status) => status.startsWith('2')).length;
    const histogram = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${status}×${count}`);
    quotaLine = `${accepted} of 3,000 accepted (quota 1,000); statuses ${histogram.join(' ')}`;
    say(`quota burst: ${quotaLine}`);
  };

  let promotedLine = '';
  const faults = [
    {
      name: 'quota-burst',
      title: '3,000 concurrent requests on a key with a quota of 1,000, across both gateways (no fault)',
      inject: burst,
    },
    {
      name: 'nats-node',
      title: `one of the three NATS servers SIGKILLed for ${seconds(outageMs)}, then restarted`,
      inject: async () => {
        const node = natsCluster.nodes[0] as (typeof natsCluster.nodes)[number];
        say(`killing NATS server ${node.name} (${node.url})`);
        await natsCluster.kill(node);
        await sleep(outageMs);
        // The fault ends when the server listens again; what an operator's probes on it would say is reported apart.
        rejoined.push(natsProbesAfterRestart(natsCluster, node));
        while (!node.running) await sleep(50);
        await waitForPort(node.port, 'the restarted server');
      },
    },
    {
      name: 'redis-primary',
      title: `the Redis primary holding the organization's quota counters SIGKILLed for ${seconds(outageMs)} (its replica promoted), then restarted`,
      inject: async () => {
        const node = await redisCluster.primaryFor(`{${org.id}}`);
        say(`killing Redis primary :${node.port}`);
        const killedAt = Date.now();
        await redisCluster.kill(node);
        await redisCluster.waitUntilServing(60_000);
        promotedLine = `replica promoted, every slot served again ${seconds(Date.now() - killedAt)} after the kill`;
        say(promotedLine);
        await sleep(Math.max(0, outageMs - (Date.now() - killedAt)));
        const restartedAt = Date.now();
        rejoined.push(
          redisCluster.restart(node).then(
            () => `Redis: :${node.port} back as a replica, in sync, ${seconds(Date.now() - restartedAt)} after its restart`,
            (error: Error) => `Redis: :${node.port} back, the cluster not serving in full within 30 s (${error.message.slice(0, 160)})`,
          ),
        );
        while (!node.running) await sleep(50);
        await waitForPort(node.port, 'the restarted server');
      },
    },
  ];

  const rows: string[] = [];
  const rejoined: Promise<string>[] = [];
  const notes: string[] = [];
  for (const fault of faults) {
    const tag = `scale-${fault.name}`;
    rows.push(await runFault(stack, fault, loadFor(tag), tag, say));
    // The next fault starts on a whole cluster.
    for (const note of await Promise.all(rejoined.splice(0))) {
      say(note);
      notes.push(note);
    }
  }

  say(
    `\n${ratePerSecond} requests/s of mixed load over two gateway replicas and two replicas of each service; Redis Cluster 3+3, NATS cluster of 3 (JETSTREAM_REPLICAS=3); lost: missing/expected (dup: received more than once)\n`,
  );
  for (const line of faultTable) say(line);
  for (const row of rows) say(row);
  say(`\nquota exactness: ${quotaLine}`);
  say(`Redis failover: ${promotedLine}`);
  for (const note of notes) say(note);
  say(`\ntook ${seconds(Date.now() - startedAt)}, of which the build ${seconds(builtAt - startedAt)}`);

  await stack.stop();
  await Promise.all([redisCluster.stop(), natsCluster.stop()]);
  if (flags.keep) say(`\nlogs kept in ${dir}`);
  process.exit(0);
} catch (error) {
  process.stderr.write(`scale: ${(error as Error).stack ?? error}\n`);
  if (flags.keep) process.stderr.write(`logs kept in ${dir}\n`);
  // The clusters' folders go with them (their servers' logs: --keep keeps the stack's only).
  await Promise.all([redis?.stop(), nats?.stop()]).catch(() => {});
  process.exit(1);
}
