// Gateway overhead. Every server runs as its own process from the compiled JavaScript, as deployed, and the
// load generator (autocannon, and a paced generator of its own) runs in this one:
//   (a) the telephony service called directly (calls list, with the signed identity headers),
//   (n) Debian's nginx in front of it (lib/nginx.ts): one worker, keep-alive upstream, the signed identity
//       headers fixed in its generated configuration; skipped, saying how to install it, when it is missing,
//   (m) the floor of a Node proxy: node:http, an undici pool and the one Lua call (lib/minimal-proxy.mjs),
//   (b) a bare @fastify/http-proxy in front of it doing one Lua quota call per request (lib/bare-proxy.mjs),
//   (b+) the same with ioredis auto-pipelining (the commands of one event-loop turn in one write),
//   (c) the full gateway: key check (cached), scope, the Lua quota call, audit records, signed proxy; a
//       serving replica (WORKERS=outbox) with a second gateway process running the audit writer,
//   (c') the same gateway with an OAuth access token instead of the API key (the token's grant counts on its
//       own quota lineage), whose cost per request is compared with the key's. A token is accepted on its
//       MCP URL alone, so it calls GET /api/mcp, which this gateway routes to the same telephony process:
//       that answers 404 (no body to speak of), which the gateway proxies like any answer,
//   (c*) one gateway process doing both, the default single-replica setup,
//   (c−) the serving replica alone: its audit records are published but nobody inserts them, which says what
//       the request path costs and what the audit inserts, running on the same two cores, add to (c).
//   (t100), (t1) the gateway of (c) with tracing on (OTEL_* variables), sampling 100% and 1% of new traces,
//       exporting OTLP/HTTP (protobuf) to a sink in this process; against (c), whose tracing is off.
// Each case is measured saturated (autocannon, BENCH_CONNECTIONS) and then at a fixed rate, evenly spaced
// (BENCH_RATE, 1,000 req/s): the latencies there, and the proxy process's CPU per request over that window.
// The machine is shared and noisy, and so is each process: identical gateway processes side by side used
// from 90 to 118 µs of CPU per request, each for its whole life (the JIT's and the allocator's luck). So
// every round starts its own proxies, (b) and every (c), and stops them after; only the telephony service
// stays. The cases run interleaved in many short rounds, each after a warm-up of its own, the order
// reversed every other round; each row is the case's median round, and each ratio the median of the
// rounds' ratios. Each server's CPU time per request is read from /proc. All processes run with
// LOG_LEVEL=silent and NODE_ENV=production.
// Usage: npm run bench -- gateway   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_WARMUP_REQUESTS,
// BENCH_RATE, BENCH_PACED_SECONDS change the load; BENCH_CASES=a,n,c runs only those cases; BENCH_PORTS a
// port range; BENCH_PROFILE_DIR=/tmp/x writes a CPU profile of each server there)

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { signIdentity } from '@voice/kit';
import { createTestContext, testIdentity } from '@voice/kit/testing';
import autocannon from 'autocannon';
import { createGrantWithToken, createOrgWithKey, Relay, startGateway } from '../test/support/harness.js';
import { nginxAvailable, startNginx } from './lib/nginx.js';
import { type PacedResult, pacedLoad } from './lib/paced-load.js';
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
/** The access token's own URL (its resource), which the bench's gateway routes to the telephony process. */
const path404 = '/api/mcp';
// The fixed rate at which latencies and the proxy's CPU per request are read (BENCH_RATE, BENCH_PACED_SECONDS).
const pacedRate = Number(process.env.BENCH_RATE ?? 1_000);
const pacedSeconds = Number(process.env.BENCH_PACED_SECONDS ?? seconds);
const withNginx = nginxAvailable();

// BENCH_SKIP_BUILD=1: the compiled dist/ is used as it is.
if (process.env.BENCH_SKIP_BUILD !== '1') buildWorkspaces(['proto', 'packages/kit', 'gateway', 'services/telephony']);
const ctx = await createTestContext();
// Each server runs as in production, on a test context's database and NATS namespace.
const productionEnv = (context: typeof ctx): Record<string, string> => ({ ...context.env, NODE_ENV: 'production' });
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
  // (c'): the token's MCP URL goes to the same upstream process.
  MCP_URL: telephony.url,
  WORKERS: auditWriter ? 'all' : 'outbox',
});

// The collector of (t100) and (t1): takes each OTLP/HTTP export and answers 200, as a collector does, keeping
// nothing. It runs in this process, whose CPU is the load generator's, not the gateway's.
const sink = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
sink.listen(0, '127.0.0.1');
await once(sink, 'listening');
/** A gateway of (c) with tracing on, sampling `ratio` of the traces it starts. */
const tracedGatewayEnv = (ratio: number) => ({
  ...gatewayEnv(ctx, false),
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(ratio),
});

/** The proxies of one round, started afresh (in parallel) so that no case keeps a lucky or unlucky process. */
async function startProxies() {
  const bareEnv = { ...env, BARE_UPSTREAM: telephony.url, BARE_ORG_ID: orgId };
  const [bare, barePipelined, minimal, gateway, writer, single, servingOnly, traced100, traced1] = await Promise.all([
    startProcess('bare proxy', 'gateway/bench/lib/bare-proxy.mjs', bareEnv),
    startProcess('bare proxy', 'gateway/bench/lib/bare-proxy.mjs', { ...bareEnv, BARE_AUTO_PIPELINING: '1' }),
    startProcess('minimal proxy', 'gateway/bench/lib/minimal-proxy.mjs', bareEnv),
    startProcess('gateway', 'gateway/dist/main.js', gatewayEnv(ctx, false)),
    startProcess('audit writer', 'gateway/dist/main.js', gatewayEnv(ctx, true)),
    startProcess('gateway', 'gateway/dist/main.js', gatewayEnv(singleCtx, true)),
    startProcess('gateway', 'gateway/dist/main.js', gatewayEnv(servingCtx, false)),
    startProcess('gateway', 'gateway/dist/main.js', tracedGatewayEnv(1)),
    startProcess('gateway', 'gateway/dist/main.js', tracedGatewayEnv(0.01)),
  ]);
  // nginx gets the signed headers fixed in its configuration, signed when its round starts.
  const nginx = withNginx ? await startNginx('nginx', telephony.url, signedHeaders()) : undefined;
  return { bare, barePipelined, minimal, gateway, writer, single, servingOnly, traced100, traced1, nginx };
}
type Proxies = Awaited<ReturnType<typeof startProxies>>;

// The identity the gateway would forward, signed afresh for each run (a signature is valid five minutes).
const signedHeaders = () =>
  signIdentity(testIdentity({ org_id: orgId }), { method: 'GET', url: path }, env.INTERNAL_SIGNING_SECRET as string);
const keyHeaders = (raw = key) => ({ authorization: `Bearer ${raw}` });

interface Saturated {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU µs per request of each process that served it. */
  cpuPerRequest: Map<string, number | undefined>;
  /** CPU µs per request of the whole machine: the servers, the load generator, Postgres, Redis, NATS. */
  machinePerRequest: number | undefined;
  /** CPU µs per request of the proxy process alone (the case's `proxy`), saturated. */
  proxyCpuPerRequest: number | undefined;
}

interface Run {
  saturated: Saturated;
  /** At the fixed rate: latencies (ms, from departure) and the proxy process's CPU µs per request. */
  paced: PacedResult & { proxyCpuPerRequest: number | undefined };
}

// What every case shares, measured too: this process (the load generator) and the backing servers.
const shared: Array<Pick<BenchProcess, 'name' | 'cpuMs'>> = [
  { name: 'load generator', cpuMs: () => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 },
  { name: 'postgres', cpuMs: () => cpuMsOfCommand('postgres') },
  { name: 'redis', cpuMs: () => cpuMsOfCommand('redis-server') },
  { name: 'nats', cpuMs: () => cpuMsOfCommand('nats-server') },
];

const perRequest = (start: number | undefined, end: number | undefined, requests: number) =>
  start === undefined || end === undefined || requests === 0 ? undefined : ((end - start) * 1000) / requests;

/**
 * One case's run: a warm-up, then `seconds` saturated by `connections` connections, then `pacedSeconds` at
 * `pacedRate` requests per second, evenly spaced, over which the proxy process's CPU per request is read.
 */
async function measure(
  url: string,
  headers: Record<string, string>,
  caseServers: BenchProcess[],
  proxy?: BenchProcess,
  target = path,
): Promise<Run> {
  const path = target;
  const servers = [...caseServers, ...shared];
  // A fresh process needs its JIT warmed up before it is measured.
  await autocannon({ url: url + path, headers, connections, amount: warmupRequests });
  const before = servers.map((server) => server.cpuMs());
  const machineBefore = machineBusyMs();
  const result = await autocannon({ url: url + path, headers, connections, duration: seconds });
  const machineAfter = machineBusyMs();
  const cpuPerRequest = new Map<string, number | undefined>();
  servers.forEach((server, index) => {
    cpuPerRequest.set(server.name, perRequest(before[index], server.cpuMs(), result.requests.total));
  });
  const proxyBefore = proxy?.cpuMs();
  const paced = await pacedLoad({ url: url + path, headers, ratePerSecond: pacedRate, seconds: pacedSeconds, connections });
  return {
    saturated: {
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      // (c') is answered 404 by its upstream on purpose (see the top): only its errors are failures.
      failed: (path === path404 ? 0 : result.non2xx) + result.errors + result.timeouts,
      cpuPerRequest,
      machinePerRequest: perRequest(machineBefore, machineAfter, result.requests.total),
      proxyCpuPerRequest: proxy ? cpuPerRequest.get(proxy.name) : undefined,
    },
    paced: { ...paced, proxyCpuPerRequest: perRequest(proxyBefore, proxy?.cpuMs(), paced.completed) },
  };
}

interface Case {
  id: string;
  label: string;
  run: (proxies: Proxies) => Promise<Run> | undefined;
  runs: Run[];
}

const allCases: Case[] = [
  { id: 'a', label: '(a) telephony directly', run: () => measure(telephony.url, signedHeaders(), [telephony]), runs: [] },
  {
    id: 'n',
    label: '(n) nginx, one worker',
    run: ({ nginx }) => nginx && measure(nginx.url, keyHeaders(), [nginx, telephony], nginx),
    runs: [],
  },
  {
    id: 'm',
    label: '(m) node:http+undici + Lua',
    run: ({ minimal }) => measure(minimal.url, signedHeaders(), [minimal, telephony], minimal),
    runs: [],
  },
  {
    id: 'b',
    label: '(b) bare http-proxy + Lua',
    run: ({ bare }) => measure(bare.url, signedHeaders(), [bare, telephony], bare),
    runs: [],
  },
  {
    id: 'b+',
    label: '(b+) (b), auto-pipelining',
    run: ({ barePipelined }) => measure(barePipelined.url, signedHeaders(), [barePipelined, telephony], barePipelined),
    runs: [],
  },
  {
    id: 'c',
    label: '(c) full gateway',
    run: ({ gateway, writer }) => measure(gateway.url, keyHeaders(), [gateway, telephony, writer], gateway),
    runs: [],
  },
  {
    id: "c'",
    label: "(c') OAuth access token",
    run: ({ gateway, writer }) => measure(gateway.url, keyHeaders(token), [gateway, telephony, writer], gateway, path404),
    runs: [],
  },
  {
    id: 'c*',
    label: '(c*) writer in process',
    run: ({ single }) => measure(single.url, keyHeaders(singleKey), [single, telephony], single),
    runs: [],
  },
  {
    id: 'c−',
    label: '(c−) no audit inserts',
    run: ({ servingOnly }) => measure(servingOnly.url, keyHeaders(servingKey), [servingOnly, telephony], servingOnly),
    runs: [],
  },
  {
    id: 't100',
    label: '(t100) (c), tracing 100%',
    run: ({ traced100, writer }) => measure(traced100.url, keyHeaders(), [traced100, telephony, writer], traced100),
    runs: [],
  },
  {
    id: 't1',
    label: '(t1) (c), tracing 1%',
    run: ({ traced1, writer }) => measure(traced1.url, keyHeaders(), [traced1, telephony, writer], traced1),
    runs: [],
  },
];
// BENCH_CASES=a,n,b,c,c* runs only those (ids as in the labels; c- for c−).
const chosen = process.env.BENCH_CASES?.split(',').map((id) => id.trim().replace('-', '−'));
const cases = allCases.filter((benchCase) => (chosen ? chosen.includes(benchCase.id) : true) && (benchCase.id !== 'n' || withNginx));
const caseById = (id: string) => cases.find((benchCase) => benchCase.id === id);

// (a) (n) (b) (c) … then … (c) (b) (n) (a): a neighbour's load that grows or fades during a round then favours
// no case over the rounds. A first round warms up the telephony service and is not counted.
for (let round = -1; round < rounds; round++) {
  const proxies = await startProxies();
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const benchCase of order) {
    const run = await benchCase.run(proxies);
    if (run && round >= 0) benchCase.runs.push(run);
  }
  await Promise.all(Object.values(proxies).map((proxy) => proxy?.stop()));
}
await stopAll();

const medianOf = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;
const median = (runs: Run[]) =>
  [...runs].sort((x, y) => x.saturated.requestsPerSecond - y.saturated.requestsPerSecond)[Math.floor(runs.length / 2)] as Run;
const micros = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(0));
const ms = (value: number) => value.toFixed(2);

console.log(
  `\ngateway overhead: GET ${path}, ${rounds} rounds; saturated: ${connections} connections for ${seconds} s (median round by req/s); at ${pacedRate} req/s evenly spaced for ${pacedSeconds} s (median of the rounds)`,
);
console.log(
  'case                          req/s   p50 ms   p99 ms  failed | at fixed rate: reached req/s  p50 ms  p99 ms  failed  proxy CPU µs/req | saturated CPU µs per request: machine; by process',
);
for (const benchCase of cases) {
  if (benchCase.runs.length === 0) continue;
  const { saturated } = median(benchCase.runs);
  const paced = benchCase.runs.map((run) => run.paced);
  const cpu = [...saturated.cpuPerRequest].map(([name, value]) => `${name} ${micros(value)}`).join(', ');
  const proxyCpu = paced.map((run) => run.proxyCpuPerRequest).filter((value) => value !== undefined);
  console.log(
    [
      benchCase.label.padEnd(28),
      saturated.requestsPerSecond.toFixed(0).padStart(7),
      String(saturated.p50).padStart(8),
      String(saturated.p99).padStart(8),
      String(saturated.failed).padStart(7),
      '|',
      ' '.repeat(13),
      // Well below the fixed rate in its slowest round: the machine did not keep up, the latencies are queueing.
      Math.min(...paced.map((run) => run.achieved))
        .toFixed(0)
        .padStart(13),
      ms(medianOf(paced.map((run) => run.p50))).padStart(7),
      ms(medianOf(paced.map((run) => run.p99))).padStart(7),
      String(paced.reduce((sum, run) => sum + run.failed, 0)).padStart(7),
      (proxyCpu.length > 0 ? micros(medianOf(proxyCpu)) : '—').padStart(17),
      ` | ${micros(saturated.machinePerRequest)}; ${cpu}`,
    ].join(' '),
  );
}
// The ratio of each round's two runs, taken seconds apart, then the median of those: the neighbours' noise
// moves both runs of a round alike, much less so runs of different rounds.
const middleHalf = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const quantile = (q: number) => (sorted[Math.floor((sorted.length - 1) * q)] ?? Number.NaN).toFixed(2);
  return { median: quantile(0.5), range: `${quantile(0.25)}–${quantile(0.75)}` };
};
const perRound = (xId: string, yId: string, value: (x: Run, y: Run) => number) => {
  const [x, y] = [caseById(xId), caseById(yId)];
  if (!x || !y) return undefined;
  return x.runs.flatMap((run, i) => {
    const other = y.runs[i];
    return other ? [value(run, other)] : [];
  });
};
const throughput = (x: Run, y: Run) => x.saturated.requestsPerSecond / y.saturated.requestsPerSecond;
const proxyCpu = (x: Run, y: Run) => (x.paced.proxyCpuPerRequest ?? Number.NaN) / (y.paced.proxyCpuPerRequest ?? Number.NaN);
const machineCpu = (x: Run, y: Run) => (y.saturated.machinePerRequest ?? Number.NaN) / (x.saturated.machinePerRequest ?? Number.NaN);
const ratioLine = (label: string, values: number[] | undefined, note: string) => {
  if (!values || values.length === 0) return;
  const { median: middle, range } = middleHalf(values);
  console.log(`${label} = ${middle}  ${note}; middle half of the rounds ${range}; per round ${values.map((v) => v.toFixed(2)).join(' ')}`);
};
for (const [id, label] of [
  ['c', '(c)'],
  ['c*', '(c*)'],
] as const) {
  ratioLine(`throughput ${label}/(n)`, perRound(id, 'n', throughput), '(saturated req/s against nginx; target ≥ 0.80)');
  ratioLine(`throughput ${label}/(b)`, perRound(id, 'b', throughput), '(against the bare proxy)');
  ratioLine(`proxy CPU per request ${label}/(n)`, perRound(id, 'n', proxyCpu), `(at ${pacedRate} req/s)`);
  ratioLine(`proxy CPU per request ${label}/(b)`, perRound(id, 'b', proxyCpu), `(at ${pacedRate} req/s)`);
  ratioLine(
    `added p50 latency ${label}−(a), ms`,
    perRound(id, 'a', (x, y) => x.paced.p50 - y.paced.p50),
    `(at ${pacedRate} req/s; target ≤ 1)`,
  );
}
ratioLine(
  'added p50 latency (n)−(a), ms',
  perRound('n', 'a', (x, y) => x.paced.p50 - y.paced.p50),
  `(at ${pacedRate} req/s)`,
);
ratioLine('throughput (b)/(n)', perRound('b', 'n', throughput), '(the bare proxy against nginx)');
ratioLine('proxy CPU per request (b)/(n)', perRound('b', 'n', proxyCpu), `(at ${pacedRate} req/s: the chosen parts' floor against nginx)`);
ratioLine('proxy CPU per request (m)/(n)', perRound('m', 'n', proxyCpu), `(at ${pacedRate} req/s: a Node proxy's floor against nginx)`);
ratioLine('throughput (b+)/(b)', perRound('b+', 'b', throughput), '(ioredis auto-pipelining on against off, saturated)');
ratioLine(
  'proxy CPU per request (b+)/(b)',
  perRound('b+', 'b', proxyCpu),
  `(ioredis auto-pipelining on against off, at ${pacedRate} req/s)`,
);
ratioLine('throughput (m)/(n)', perRound('m', 'n', throughput), '(a Node proxy without fastify against nginx)');
ratioLine("throughput (c')/(b)", perRound("c'", 'b', throughput), '(an OAuth access token instead of the key)');
ratioLine('throughput (c−)/(b)', perRound('c−', 'b', throughput), '(the request path without the audit inserts)');
// Tracing on against off, the same gateway and load: the CPU per request of the gateway process at the fixed
// rate, and the saturated throughput. Target: under 1.10 for CPU at 1% sampling.
ratioLine('tracing 1%: gateway CPU per request (t1)/(c)', perRound('t1', 'c', proxyCpu), `(at ${pacedRate} req/s; target < 1.10)`);
ratioLine('tracing 100%: gateway CPU per request (t100)/(c)', perRound('t100', 'c', proxyCpu), `(at ${pacedRate} req/s)`);
ratioLine('tracing 1%: throughput (t1)/(c)', perRound('t1', 'c', throughput), '(saturated)');
ratioLine('tracing 100%: throughput (t100)/(c)', perRound('t100', 'c', throughput), '(saturated)');
ratioLine('machine CPU per request, (b)÷(c)', perRound('c', 'b', machineCpu), '(the (c)/(b) ratio on a saturated machine)');

// An access token against an API key on the same gateway process, round by round: the gateway's CPU per
// request (what authenticating either costs it) and the throughput. Target: the token costs no more.
ratioLine(
  "OAuth access token / API key, the gateway's CPU per request at the fixed rate",
  perRound("c'", 'c', proxyCpu),
  '(target ≤ 1, within the noise)',
);
ratioLine('API key / OAuth access token, by throughput', perRound('c', "c'", throughput), '(target ≤ 1, within the noise)');

// Against its peers (issue "Performance where people wait"): what one core does for the gateway's own work at
// saturation, 10⁶ ÷ its process's CPU µs per request (the gateway is one Node process, one core's worth at most;
// the backing servers and the load generator are not counted, as a peer's figure counts its proxy nodes only),
// against the framework-free floor (m) of the same run, and the published figures of Kong and Tyk per core.
const saturatedProxyCpu = (run: Run) => run.saturated.proxyCpuPerRequest ?? Number.NaN;
const perCoreLine = (id: string, label: string) => {
  const runs = caseById(id)?.runs ?? [];
  const cpu = runs.map(saturatedProxyCpu).filter((value) => !Number.isNaN(value));
  if (cpu.length === 0) return;
  const saturatedCpu = medianOf(cpu);
  const paced = runs.map((run) => run.paced.proxyCpuPerRequest).filter((value) => value !== undefined);
  console.log(
    `${label.padEnd(30)} ${Math.round(1e6 / saturatedCpu)
      .toLocaleString('en')
      .padStart(
        7,
      )} req/s per core   ${micros(saturatedCpu).padStart(5)} CPU µs/request saturated, ${paced.length > 0 ? micros(medianOf(paced)) : 'n/a'} at ${pacedRate} req/s`,
  );
};
if (caseById('c') || caseById('m')) {
  console.log(`
per core, this machine (${cpus().length} cores, load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}):`);
  perCoreLine('m', '(m) floor: node:http+undici+Lua');
  perCoreLine('c', '(c) full gateway');
  perCoreLine('n', '(n) nginx, one worker');
  ratioLine(
    'CPU per request at saturation (c)/(m)',
    perRound('c', 'm', (x, y) => saturatedProxyCpu(x) / saturatedProxyCpu(y)),
    '(the gateway against the framework-free floor; target ≤ 1.15)',
  );
  ratioLine('CPU per request at the fixed rate (c)/(m)', perRound('c', 'm', proxyCpu), `(at ${pacedRate} req/s; target ≤ 1.15)`);
  // Published, not measured here: their hardware, TLS and plugins differ; per core is total ÷ vCPUs.
  console.log('published peers (their own benchmarks and hardware):');
  console.log(
    '  Kong Gateway 3.x, rate limiting + key auth, 1 route/1 consumer, HTTPS, Kubernetes on AWS: 97,208 req/s on its benchmark cluster',
  );
  console.log('    (developer.konghq.com/gateway/performance/benchmarks; the node count and size are not given beside the figure,');
  console.log(
    '     so no per-core figure is derived; at 8 vCPU, the docs’ suggested 8 workers, it would be ≈12,150 req/s per core, ≈82 µs;',
  );
  console.log('     if its 32 workers were all busy, ≈3,000 req/s per worker, ≈330 µs)');
  console.log(
    '  Tyk, auth + rate limiting + analytics, in Docker: 23,667 req/s on one c5.2xlarge (8 vCPU) = 2,958 req/s per vCPU, ≈338 µs per request',
  );
  console.log('    (tyk.io/docs/4.0/planning-for-production/benchmarks)');
  console.log(
    '  Express Gateway (Node, Express), no plugins at all: about 5,900 req/s per core, ≈170 µs per request (as issue 35 gives it)',
  );
}

// Redis unreachable: how long the gateway takes to answer (target: 503 within 500 ms).
const relay = await Relay.start(ctx.redisUrl);
const down = await startGateway(ctx, { REDIS_URL: relay.url('redis:'), QUOTA_TIMEOUT_MS: '450' }, { auditWorker: false });
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
sink.close();
await Promise.all([ctx.cleanup(), singleCtx.cleanup(), servingCtx.cleanup()]);
