// Gateway overhead, measured in one run on this machine (ratios are what count; absolute figures depend on
// the two shared cores, which also run the load generator):
//   (a) the telephony service called directly (calls list, with the signed identity headers),
//   (b) a bare @fastify/http-proxy in front of it doing one Lua quota call per request,
//   (c) the full gateway: key check (cached), scope, the Lua quota call, audit publish, signed proxy,
//       with the audit writer in a separate gateway process (AUDIT_WRITER=false on serving replicas),
//   (c*) the same gateway also running the audit writer in its own process (the default, one replica).
// Usage: npm run bench -- gateway   (BENCH_SECONDS, BENCH_CONNECTIONS to change the load)
import type { AddressInfo } from 'node:net';
import proxy from '@fastify/http-proxy';
import { connectRedis, parseEnv, signIdentity } from '@voice/kit';
import { createTestContext, testIdentity } from '@voice/kit/testing';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildApp as buildTelephony } from '../../services/telephony/src/app.js';
import { connectDeps as connectTelephony } from '../../services/telephony/src/deps.js';
import { envSchema as telephonyEnvSchema } from '../../services/telephony/src/env.js';
import { countRequest, defineQuotaCommand } from '../src/quota/quota.js';
import { createOrgWithKey, Relay, startGateway } from '../test/stack.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const path = '/api/v1/phone/calls?limit=20';

const ctx = await createTestContext();
const listenUrl = (server: { address(): AddressInfo | string | null }) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const telephonyDeps = await connectTelephony(parseEnv(telephonyEnvSchema, ctx.env));
const telephony = await buildTelephony(telephonyDeps);
await telephony.listen({ host: '127.0.0.1', port: 0 });
const telephonyUrl = listenUrl(telephony.server);

const gateway = await startGateway(ctx, { TELEPHONY_URL: telephonyUrl, LOG_LEVEL: 'silent' }, { auditWorker: false });
await gateway.app.listen({ host: '127.0.0.1', port: 0 });
// The writer replica: consumes the audit records the serving gateway publishes.
const writer = await startGateway(ctx, { TELEPHONY_URL: telephonyUrl, LOG_LEVEL: 'silent' });
const withWriter = await startGateway(ctx, { TELEPHONY_URL: telephonyUrl, LOG_LEVEL: 'silent' });
await withWriter.app.listen({ host: '127.0.0.1', port: 0 });
const { key, orgId } = await createOrgWithKey(gateway, { plan: 'enterprise', quota: 2_000_000_000 });

// The identity the gateway would forward; valid for the signature's five minutes, enough for the run.
const identity = testIdentity({ org_id: orgId });
const signed = signIdentity(identity, { method: 'GET', url: path }, ctx.env.INTERNAL_SIGNING_SECRET as string);

// (b): the least a metering proxy can do.
const redis = await connectRedis(ctx.redisUrl, { failFast: true });
defineQuotaCommand(redis);
const bare = Fastify({ logger: false });
bare.addHook('onRequest', async () => {
  await countRequest(redis, {
    prefix: `${ctx.redisPrefix}bare:`,
    orgId,
    lineageId: 'bench',
    monthlyQuota: 2_000_000_000,
    dailyLimit: null,
    now: new Date(),
  });
});
await bare.register(proxy, { upstream: telephonyUrl, prefix: '/api/v1/phone', rewritePrefix: '/api/v1/phone', http2: false });
await bare.listen({ host: '127.0.0.1', port: 0 });

async function measure(label: string, url: string, headers: Record<string, string>) {
  // A short warm-up, then the measured run.
  await autocannon({ url: url + path, headers, connections, duration: 1 });
  const result = await autocannon({ url: url + path, headers, connections, duration: seconds });
  const non2xx = result.non2xx + result.errors;
  return { label, requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx };
}

const rows = [
  await measure('(a) telephony directly', telephonyUrl, signed),
  await measure('(b) bare http-proxy + Lua', listenUrl(bare.server), signed),
  await measure('(c) full gateway', listenUrl(gateway.app.server), { authorization: `Bearer ${key}` }),
];
await writer.close();
const inProcess = await measure('(c*) + writer in process', listenUrl(withWriter.app.server), { authorization: `Bearer ${key}` });

console.log(`\ngateway overhead: GET ${path}, ${connections} connections, ${seconds} s each`);
console.log('case                          req/s     p50 ms   p99 ms   non-2xx');
for (const row of rows) {
  console.log(
    `${row.label.padEnd(28)} ${String(row.requestsPerSecond).padStart(7)} ${String(row.p50).padStart(9)} ${String(row.p99).padStart(8)} ${String(row.non2xx).padStart(9)}`,
  );
}
const [, b, c] = rows;
if (b && c) console.log(`ratio (c)/(b) = ${(c.requestsPerSecond / b.requestsPerSecond).toFixed(2)}  (target ≥ 0.90)`);
console.log(
  `${inProcess.label.padEnd(28)} ${String(inProcess.requestsPerSecond).padStart(7)} ${String(inProcess.p50).padStart(9)} ${String(inProcess.p99).padStart(8)} ${String(inProcess.non2xx).padStart(9)}`,
);
if (b)
  console.log(
    `ratio (c*)/(b) = ${(inProcess.requestsPerSecond / b.requestsPerSecond).toFixed(2)}  (the writer's inserts share this machine's two cores)`,
  );

// Redis unreachable: how long the gateway takes to answer (target: 503 within 500 ms).
redis.disconnect();
const relay = await Relay.start(ctx.redisUrl);
const down = await startGateway(ctx, { REDIS_URL: relay.url('redis:'), LOG_LEVEL: 'silent' }, { auditWorker: false });
await down.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { authorization: `Bearer ${key}` } });
relay.stop();
const timings: number[] = [];
let status = 0;
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  const response = await down.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { authorization: `Bearer ${key}` } });
  timings.push(performance.now() - started);
  status = response.statusCode;
}
timings.sort((x, y) => x - y);
console.log(`redis unreachable: HTTP ${status}, worst of 20 answers in ${timings.at(-1)?.toFixed(1)} ms (target < 500 ms)`);
await down.close();
await relay.close();

await bare.close();
await withWriter.close();
await gateway.close();
await telephony.close();
await telephonyDeps.close();
await ctx.cleanup();
