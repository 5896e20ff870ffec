// Gateway overhead. Every server runs as its own process from the compiled JavaScript, as deployed, and the
// load generator (autocannon) runs in this one:
//   (a) the telephony service called directly (calls list, with the signed identity headers),
//   (b) a bare @fastify/http-proxy in front of it doing one Lua quota call per request (lib/bare-proxy.mjs),
//   (c) the full gateway: key check (cached), scope, the Lua quota call, audit records, signed proxy; a
//       serving replica (WORKERS=outbox) with a second gateway process running the audit writer,
//   (c') the same gateway with an OAuth access token instead of the API key (the token's grant counts on its
//       own quota lineage), whose cost per request is compared with the key's,
//   (c*) one gateway process doing both, the default single-replica setup,
//   (c−) the serving replica alone: its audit records are published but nobody inserts them, which says what
//       the request path costs and what the audit inserts, running on the same two cores, add to (c).
// The machine is shared and noisy, and so is each process: identical gateway processes side by side used
// from 90 to 118 µs of CPU per request, each for its whole life (the JIT's and the allocator's luck). So
// every round starts its own proxies, (b) and every (c), and stops them after; only the telephony service
// stays. The cases run interleaved in many short rounds, each after a warm-up of its own, the order
// reversed every other round; each row is the case's median round, and each ratio the median of the
// rounds' ratios. Each server's CPU time per request is read from /proc. All processes run with
// LOG_LEVEL=silent and NODE_ENV=production.
// Usage: npm run bench -- gateway   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_WARMUP_REQUESTS
// change the load; BENCH_PROFILE_DIR=/tmp/x writes a CPU profile of each server there)
import { signIdentity } from '@voice/kit';
import { createTestContext, testIdentity } from '@voice/kit/testing';
import autocannon from 'autocannon';
import { createGrantWithToken, createOrgWithKey, Relay, startGateway } from '../test/support/harness.js';
import { type BenchProcess, buildWorkspaces, cpuMsOfCommand, machineBusyMs, startProcess, stopAll } from './lib/processes.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
// A fresh proxy reaches its steady CPU per request after about 6,000-8,000 requests (measured in windows
// of 1,000: 1,970 -> 1,300 -> 820 ... -> 550 µs for the bare proxy, 2,400 -> ... -> 690 µs for the gateway,
// whose larger code takes longer to compile). Counted in requests, not seconds, so that a slow machine warms
// its processes as far as a fast one.
const warmupRequests = Number(process.env.BENCH_WARMUP_REQUESTS ?? 8_000);
const path = '/api/v1/phone/calls?limit=20';

buildWorkspaces(['proto', 'packages/kit', 'gateway', 'services/telephony']);
const ctx = await createTestContext();
// Each server runs as in production, on a test context's database and NATS namespace.
const productionEnv = (context: typeof ctx) => ({ ...context.env, NODE_ENV: 'production' });
const env = productionEnv(ctx);

// The organization and key, made with the operator commands of an in-process gateway that serves nothing;
// for (c'), a grant of the same organization and an access token living long enough for the whole bench.
async function orgWithKey(context: typeof ctx, withToken = false) {
  const admin = await startGateway(context, { OAUTH_ACCESS_TOKEN_SECONDS: String(86_400) }, { auditWorker: false });
  const created = await createOrgWithKey(admin, { plan: 'enterprise', quota: 2_000_000_000 });
  const token = withToken ? (await createGrantWithToken(admin, created.orgId, { quota: 1_000_000_000 })).token : '';
  await admin.close();
  return { ...created, token };
}
const { key, orgId, token } = await orgWithKey(ctx, true);
// (c*) gets a context of its own (database, NATS stream and consumer), so that the writer replica of (c)
// does not take a share of its inserts.
const singleCtx = await createTestContext();
const { key: singleKey } = await orgWithKey(singleCtx);
// (c−) too: no writer consumes its stream.
const servingCtx = await createTestContext();
const { key: servingKey } = await orgWithKey(servingCtx);

const telephony = await startProcess('telephony', 'services/telephony/dist/main.js', env);
const gatewayEnv = (context: typeof ctx, auditWriter: boolean) => ({
  ...productionEnv(context),
  TELEPHONY_URL: telephony.url,
  WORKERS: auditWriter ? 'all' : 'outbox',
});

/** The proxies of one round, started afresh (in parallel) so that no case keeps a lucky or unlucky process. */
async function startProxies() {
  const [bare, gateway, writer, single, servingOnly] = await Promise.all([
    startProcess('bare proxy', 'gateway/bench/lib/bare-proxy.mjs', { ...env, BARE_UPSTREAM: telephony.url, BARE_ORG_ID: orgId }),
    startProcess('gateway', 'gateway/dist/main.js', gatewayEnv(ctx, false)),
    startProcess('audit writer', 'gateway/dist/main.js', gatewayEnv(ctx, true)),
    startProcess('gateway', 'gateway/dist/main.js', gatewayEnv(singleCtx, true)),
    startProcess('gateway', 'gateway/dist/main.js', gatewayEnv(servingCtx, false)),
  ]);
  return { bare, gateway, writer, single, servingOnly };
}
type Proxies = Awaited<ReturnType<typeof startProxies>>;

// The identity the gateway would forward, signed afresh for each run (a signature is valid five minutes).
const signedHeaders = () =>
  signIdentity(testIdentity({ org_id: orgId }), { method: 'GET', url: path }, env.INTERNAL_SIGNING_SECRET as string);
const keyHeaders = (raw = key) => ({ authorization: `Bearer ${raw}` });

interface Run {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU µs per request of each process that served it. */
  cpuPerRequest: Map<string, number | undefined>;
  /** CPU µs per request of the whole machine: the servers, the load generator, Postgres, Redis, NATS. */
  machinePerRequest: number | undefined;
}

// What every case shares, measured too: this process (the load generator) and the backing servers.
const shared: Array<Pick<BenchProcess, 'name' | 'cpuMs'>> = [
  { name: 'load generator', cpuMs: () => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 },
  { name: 'postgres', cpuMs: () => cpuMsOfCommand('postgres') },
  { name: 'redis', cpuMs: () => cpuMsOfCommand('redis-server') },
  { name: 'nats', cpuMs: () => cpuMsOfCommand('nats-server') },
];

async function measure(url: string, headers: Record<string, string>, caseServers: BenchProcess[]): Promise<Run> {
  const servers = [...caseServers, ...shared];
  // A fresh process needs its JIT warmed up before it is measured.
  await autocannon({ url: url + path, headers, connections, amount: warmupRequests });
  const before = servers.map((server) => server.cpuMs());
  const machineBefore = machineBusyMs();
  const result = await autocannon({ url: url + path, headers, connections, duration: seconds });
  const machineAfter = machineBusyMs();
  const cpuPerRequest = new Map<string, number | undefined>();
  servers.forEach((server, index) => {
    const [start, end] = [before[index], server.cpuMs()];
    cpuPerRequest.set(server.name, start === undefined || end === undefined ? undefined : ((end - start) * 1000) / result.requests.total);
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    cpuPerRequest,
    machinePerRequest:
      machineBefore === undefined || machineAfter === undefined
        ? undefined
        : ((machineAfter - machineBefore) * 1000) / result.requests.total,
  };
}

interface Case {
  label: string;
  run: (proxies: Proxies) => Promise<Run>;
  runs: Run[];
}

const cases: Case[] = [
  { label: '(a) telephony directly', run: () => measure(telephony.url, signedHeaders(), [telephony]), runs: [] },
  { label: '(b) bare http-proxy + Lua', run: ({ bare }) => measure(bare.url, signedHeaders(), [bare, telephony]), runs: [] },
  {
    label: '(c) full gateway',
    run: ({ gateway, writer }) => measure(gateway.url, keyHeaders(), [gateway, telephony, writer]),
    runs: [],
  },
  {
    label: "(c') OAuth access token",
    run: ({ gateway, writer }) => measure(gateway.url, keyHeaders(token), [gateway, telephony, writer]),
    runs: [],
  },
  { label: '(c*) writer in process', run: ({ single }) => measure(single.url, keyHeaders(singleKey), [single, telephony]), runs: [] },
  {
    label: '(c−) no audit inserts',
    run: ({ servingOnly }) => measure(servingOnly.url, keyHeaders(servingKey), [servingOnly, telephony]),
    runs: [],
  },
];
// (a) (b) (c) (c*) (c−), then (c−) (c*) (c) (b) (a): a neighbour's load that grows or fades during a round then
// favours no case over the rounds. A first round warms up the telephony service and is not counted.
for (let round = -1; round < rounds; round++) {
  const proxies = await startProxies();
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const benchCase of order) {
    const run = await benchCase.run(proxies);
    if (round >= 0) benchCase.runs.push(run);
  }
  await Promise.all(Object.values(proxies).map((proxy) => proxy.stop()));
}
await stopAll();

const median = (runs: Run[]) => [...runs].sort((x, y) => x.requestsPerSecond - y.requestsPerSecond)[Math.floor(runs.length / 2)] as Run;
const micros = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(0));

console.log(`\ngateway overhead: GET ${path}, ${connections} connections, ${rounds} rounds of ${seconds} s, median round`);
console.log('case                          req/s   p50 ms   p99 ms  failed   CPU µs per request: machine; by process');
for (const benchCase of cases) {
  const run = median(benchCase.runs);
  const cpu = [...run.cpuPerRequest].map(([name, value]) => `${name} ${micros(value)}`).join(', ');
  console.log(
    `${benchCase.label.padEnd(28)} ${run.requestsPerSecond.toFixed(0).padStart(7)} ${String(run.p50).padStart(8)} ${String(run.p99).padStart(8)} ${String(run.failed).padStart(7)}   ${micros(run.machinePerRequest)}; ${cpu}`,
  );
}
// The ratio of each round's two runs, taken seconds apart, then the median of those: the neighbours' noise
// moves both runs of a round alike, much less so runs of different rounds. Beside it, the same ratio from the
// machine's CPU per request: what the throughput ratio is on a saturated machine, whoever got scheduled.
const middleHalf = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const quantile = (q: number) => (sorted[Math.floor((sorted.length - 1) * q)] ?? Number.NaN).toFixed(2);
  return { median: quantile(0.5), range: `${quantile(0.25)}–${quantile(0.75)}` };
};
const ratioLine = (label: string, caseIndex: number, note: string) => {
  const [bRuns, xRuns] = [cases[1]?.runs ?? [], cases[caseIndex]?.runs ?? []];
  const perRound = xRuns.map((run, i) => run.requestsPerSecond / (bRuns[i]?.requestsPerSecond ?? Number.NaN));
  const byThroughput = middleHalf(perRound);
  const byCpu = middleHalf(xRuns.map((run, i) => (bRuns[i]?.machinePerRequest ?? Number.NaN) / (run.machinePerRequest ?? Number.NaN)));
  console.log(`ratio ${label}/(b) = ${byThroughput.median}  ${note}; middle half of the rounds ${byThroughput.range}`);
  console.log(`  per round ${perRound.map((value) => value.toFixed(2)).join(' ')}`);
  console.log(`  from the machine's CPU per request: ${byCpu.median} (middle half ${byCpu.range})`);
};
ratioLine('(c)', 2, '(target ≥ 0.90)');
ratioLine("(c')", 3, '(an OAuth access token instead of the key)');
ratioLine('(c*)', 4, "(one process, the default: the writer's inserts share its event loop)");
ratioLine('(c−)', 5, '(the request path without the audit inserts)');

// An access token against an API key on the same gateway process, round by round: the gateway's CPU per
// request (what authenticating either costs it) and the throughput. Target: the token costs no more.
{
  const [keyRuns, tokenRuns] = [cases[2]?.runs ?? [], cases[3]?.runs ?? []];
  const gatewayCpu = middleHalf(
    tokenRuns.map((run, i) => (run.cpuPerRequest.get('gateway') ?? Number.NaN) / (keyRuns[i]?.cpuPerRequest.get('gateway') ?? Number.NaN)),
  );
  const throughput = middleHalf(tokenRuns.map((run, i) => (keyRuns[i]?.requestsPerSecond ?? Number.NaN) / run.requestsPerSecond));
  console.log(
    `OAuth access token / API key, the gateway's CPU per request: ${gatewayCpu.median} (middle half ${gatewayCpu.range}); by throughput (key req/s ÷ token req/s): ${throughput.median} (middle half ${throughput.range}) (target ≤ 1, within the noise)`,
  );
}

// Redis unreachable: how long the gateway takes to answer (target: 503 within 500 ms).
const relay = await Relay.start(ctx.redisUrl);
const down = await startGateway(ctx, { REDIS_URL: relay.url('redis:') }, { auditWorker: false });
await down.app.inject({ method: 'GET', url: '/api/v1/usage', headers: keyHeaders() });
relay.stop();
const timings: number[] = [];
let status = 0;
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  const response = await down.app.inject({ method: 'GET', url: '/api/v1/usage', headers: keyHeaders() });
  timings.push(performance.now() - started);
  status = response.statusCode;
}
timings.sort((x, y) => x - y);
console.log(`redis unreachable: HTTP ${status}, worst of 20 answers in ${timings.at(-1)?.toFixed(1)} ms (target < 500 ms)`);
await down.close();
await relay.close();
await Promise.all([ctx.cleanup(), singleCtx.cleanup(), servingCtx.cleanup()]);
