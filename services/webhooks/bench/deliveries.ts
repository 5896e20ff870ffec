// Webhook deliveries end to end, against a bare loop doing only the POSTs, in one run (README "Bench").
//
// Runs the service in-process (fan-out, BullMQ worker) against a fresh test database and namespace, and a local
// receiver answering 200 at once. Interleaved rounds, the order reversed every other round; each figure is the
// median of the rounds:
//
// - (base) the floor: the same number of POSTs to the same receiver at the same concurrency from a bare loop,
//   each signed by the service's own code (the endpoint's secret opened, Standard Webhooks headers), through an
//   undici keep-alive pool: no queue, no database, no NATS;
// - (svc) the service: the events published on JetStream at once, timed from the first publish to the last
//   receipt, so fan-out, BullMQ, the attempt's reads and writes, signing and the POST are all in it;
// - (lat) latency at a steady rate (BENCH_RATE, 200 events/s, for BENCH_PACED_SECONDS): each event committed to
//   an outbox table in its own transaction at its own moment, as a producing service does, and published by
//   kit's outbox relay, nudged after the commit; from the commit's return to the receiver's arrival of the POST.
//   The last round's deliveries are split into stages (commit → fan-out statement → job added → job started →
//   arrival → job finished) from the rows' and jobs' own timestamps, all read from this machine's clock.
//
// Beside the rates, counted rather than timed: the Postgres statements and Redis commands the service sends per
// delivery in the (svc) case, at the clients (pg's Client.query, ioredis's sendCommand, which BullMQ's scripts go
// through too; a MULTI and each of its commands count one each), the bench's own polling left out. Batched
// statements carry more deliveries when more arrive together, so the counts move a little with the timing.
//
// Usage: npx tsx --conditions=source services/webhooks/bench/deliveries.ts [events=2000] [endpoints=1] [concurrency=50]
// BENCH_ROUNDS (default 3), BENCH_RATE (200), BENCH_PACED_SECONDS (10); BENCH_CASES=svc (or base,svc, lat…) runs
// only those cases, to profile one (node --cpu-prof). Prints figures; nothing asserts timings.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { bullmqOptions, insertOutboxRows, newEvent, OutboxRelay, parseEnv, schemaPoolConfig } from '@voice/kit';
import { createTestContext, gatewayHeaders, sampleEventData, startReceiver, testIdentity } from '@voice/kit/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { deliveryQueueName } from '../src/delivery/queue.js';
import { connectDeps } from '../src/deps.js';
import { signingSecrets } from '../src/domain/records.js';
import { signedHeaders } from '../src/domain/signature.js';
import { envSchema } from '../src/env.js';

const [eventCount = 2_000, endpointCount = 1, concurrency = 50] = process.argv.slice(2).map(Number);
const total = eventCount * endpointCount;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const rate = Number(process.env.BENCH_RATE ?? 200);
const pacedSeconds = Number(process.env.BENCH_PACED_SECONDS ?? 10);
const targets = { ratio: 0.5, p95Ms: 250 };
const chosen = new Set((process.env.BENCH_CASES ?? 'base,svc,lat').split(',').map((name) => name.trim()));

/** Wall-clock milliseconds with a fraction: comparable with the timestamps Postgres and BullMQ keep. */
const now = () => performance.timeOrigin + performance.now();
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);
};

// Every statement and command sent by any client of the process, but the Redis connection the bench polls the
// queue with, known by its name (BullMQ makes its own copy of a connection it is given, with the same options).
const sent = { postgres: 0, redis: 0 };
const benchConnectionName = 'webhooks-bench-watch';
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  sent.postgres++;
  return (originalQuery as (...args: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;
const originalSendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  if (this.options.connectionName !== benchConnectionName) sent.redis++;
  return originalSendCommand.apply(this, args);
};

const ctx = await createTestContext();
const deps = await connectDeps(
  parseEnv(envSchema, {
    ...ctx.env,
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_DELIVERY_CONCURRENCY: String(concurrency),
  }),
);
const app = await buildApp(deps);

// Arrivals by webhook-id (the event id), and a waiter for a count of them.
const arrivals = new Map<string, number>();
let waiter: { count: number; resolve: () => void } | undefined;
let received = 0;
const receiver = await startReceiver((request) => {
  arrivals.set(String(request.headers['webhook-id']), now());
  received++;
  if (waiter && received >= waiter.count) waiter.resolve();
  return 200;
});
const receivedCount = (count: number, timeoutMs = 600_000) =>
  new Promise<void>((resolve, reject) => {
    if (received >= count) return resolve();
    const timer = setTimeout(() => reject(new Error(`${received} of ${count} deliveries after ${timeoutMs} ms`)), timeoutMs);
    waiter = {
      count,
      resolve: () => {
        clearTimeout(timer);
        waiter = undefined;
        resolve();
      },
    };
  });
// The bench's own view of the queue, on a connection of its own whose commands are not counted.
const watchRedis = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null, connectionName: benchConnectionName });
const watchedQueue = new Queue(deliveryQueueName, { connection: watchRedis, prefix: bullmqOptions(deps.env).prefix });
const sentBefore = sent.redis;
await watchedQueue.getJobCounts('active');
if (sent.redis !== sentBefore) throw new Error('the bench counts its own polling: BullMQ did not use the connection given');
/** Every job of the queue finished (the bookkeeping after the POST included), so the next case starts on an idle service. */
const settled = async () => {
  for (;;) {
    const counts = await watchedQueue.getJobCounts('active', 'wait', 'delayed', 'prioritized');
    if (Object.values(counts).every((count) => count === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

// The outbox a producing service would write: telephony's table of the same test database, drained by kit's relay.
const producerSchema = 'telephony';
const producerPool = new pg.Pool(schemaPoolConfig(ctx.databaseUrl, producerSchema, { maxConnections: 4 }));
const relay = new OutboxRelay({ bus: deps.bus, logger: deps.logger, databaseUrl: ctx.databaseUrl, schema: producerSchema }).start();

const undiciAgent = new Agent({ connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
const identity = testIdentity({ plan: 'pro' });

try {
  for (let index = 0; index < endpointCount; index++) {
    const url = '/api/v1/webhooks';
    const response = await app.inject({
      method: 'POST',
      url,
      headers: gatewayHeaders(identity, 'POST', url),
      payload: { url: receiver.url },
    });
    if (response.statusCode !== 201) throw new Error(`endpoint not created: ${response.body}`);
  }
  const endpoints = await deps.prisma.endpoint.findMany({ where: { orgId: identity.org_id } });

  const perDelivery = { postgres: [] as number[], redis: [] as number[] };
  let sequence = 0;
  const nextEvent = () =>
    newEvent('call.completed', identity.org_id, sampleEventData('call.completed', { call_id: `call_benchmark${sequence++}` }));

  /** (base): `total` signed POSTs, `concurrency` at a time, from a loop. Deliveries per second. */
  const baseline = async () => {
    const bodies = Array.from({ length: eventCount }, () => {
      const event = nextEvent();
      return { id: event.id, body: JSON.stringify(event) };
    });
    const jobs = bodies.flatMap((event) => endpoints.map((endpoint) => ({ event, endpoint })));
    const before = received;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < jobs.length) {
          const { event, endpoint } = jobs[next++] as (typeof jobs)[number];
          const at = new Date();
          const headers = signedHeaders(signingSecrets(endpoint, at, deps.secretBox), event.id, event.body, at);
          const response = await request(endpoint.url, {
            method: 'POST',
            dispatcher: undiciAgent,
            headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'voice-webhooks/1.0' },
            body: event.body,
          });
          await response.body.text();
          if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (received - before !== total) throw new Error(`baseline: ${received - before} of ${total} received`);
    return total / seconds;
  };

  /** (svc): `eventCount` events published at once; deliveries per second to the last receipt. */
  const service = async () => {
    const target = received + total;
    const before = { ...sent };
    const started = performance.now();
    for (let offset = 0; offset < eventCount; offset += 100) {
      const batch = Math.min(100, eventCount - offset);
      await Promise.all(Array.from({ length: batch }, () => deps.bus.publishEnvelope(nextEvent())));
    }
    await receivedCount(target);
    const seconds = (performance.now() - started) / 1000;
    await settled();
    perDelivery.postgres.push((sent.postgres - before.postgres) / total);
    perDelivery.redis.push((sent.redis - before.redis) / total);
    return total / seconds;
  };

  /** (lat): events committed at `rate` per second; commit-to-arrival latency of each delivery, in ms. */
  const latency = async () => {
    const count = Math.round(rate * pacedSeconds);
    const committed = new Map<string, number>();
    const target = received + count * endpointCount;
    const started = performance.now();
    const commits: Array<Promise<void>> = [];
    for (let index = 0; index < count; index++) {
      const due = started + (index * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const event = nextEvent();
      commits.push(
        (async () => {
          const client = await producerPool.connect();
          try {
            await client.query('BEGIN');
            await insertOutboxRows(
              { $executeRawUnsafe: (query, ...values) => client.query(query, values).then((result) => result.rowCount ?? 0) },
              [{ event, aggregateId: event.id }],
            );
            await client.query('COMMIT');
          } finally {
            client.release();
          }
          committed.set(event.id, now());
          relay.nudge();
        })(),
      );
    }
    await Promise.all(commits);
    await receivedCount(target);
    const late = [...committed].map(([id, at]) => (arrivals.get(id) as number) - at);
    await settled();
    return { late, committed, achievedRate: count / ((performance.now() - started) / 1000) };
  };

  // Warm-up: the JIT, the pools' connections, the consumers' first pulls.
  if (chosen.has('base')) await baseline();
  if (chosen.has('svc') || chosen.has('lat')) await service();

  const results = {
    base: [] as number[],
    svc: [] as number[],
    ratio: [] as number[],
    p50: [] as number[],
    p95: [] as number[],
    p99: [] as number[],
  };
  let lastLatency: Awaited<ReturnType<typeof latency>> | undefined;
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(loadavg()[0] as number);
    let base = 0;
    let svc = 0;
    const cases: Array<() => Promise<void>> = [
      async () => {
        if (chosen.has('base')) base = await baseline();
      },
      async () => {
        if (chosen.has('svc')) svc = await service();
      },
      async () => {
        if (chosen.has('lat')) lastLatency = await latency();
      },
    ];
    for (const run of round % 2 === 0 ? cases : cases.reverse()) await run();
    const late = lastLatency?.late ?? [];
    results.base.push(base);
    results.svc.push(svc);
    results.ratio.push(svc / base);
    results.p50.push(percentile(late, 50));
    results.p95.push(percentile(late, 95));
    results.p99.push(percentile(late, 99));
    console.log(
      `round ${round + 1}: base ${Math.round(base)}/s, service ${Math.round(svc)}/s, ratio ${(svc / base).toFixed(3)}; ` +
        `at ${rate}/s p50 ${percentile(late, 50).toFixed(1)} p95 ${percentile(late, 95).toFixed(1)} p99 ${percentile(late, 99).toFixed(1)} ms (load ${loads.at(-1)?.toFixed(2)})`,
    );
  }

  const fixed = (value: number, digits = 1) => value.toFixed(digits);
  console.log(`\nevents ${eventCount} × endpoints ${endpointCount}, worker concurrency ${concurrency}, ${rounds} rounds (medians)`);
  console.log(
    `load average (1 min) during rounds: ${loads.map((load) => fixed(load, 2)).join(', ')}; now: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
  );
  console.log(`(base) bare signed POST loop:      ${Math.round(median(results.base))} deliveries/s`);
  console.log(`(svc)  service, publish → receipt: ${Math.round(median(results.svc))} deliveries/s`);
  console.log(`ratio svc / base:                  ${fixed(median(results.ratio), 3)}   (target ≥ ${targets.ratio})`);
  if (perDelivery.postgres.length > 0) {
    console.log(
      `(svc)  per delivery, sent by the service: ${fixed(median(perDelivery.postgres), 2)} Postgres statements, ${fixed(median(perDelivery.redis), 2)} Redis commands (counted, not timed; a MULTI and its commands count one each)`,
    );
  }
  console.log(
    `(lat)  commit → arrival at ${rate}/s:  p50 ${fixed(median(results.p50))} ms, p95 ${fixed(median(results.p95))} ms (target < ${targets.p95Ms}), p99 ${fixed(median(results.p99))} ms`,
  );

  // Stages of the last latency round, from the rows' and jobs' own timestamps (medians and p95 over its deliveries).
  if (lastLatency) {
    const ids = [...lastLatency.committed.keys()];
    const rows = await deps.prisma.delivery.findMany({
      where: { eventId: { in: ids } },
      select: { id: true, eventId: true, createdAt: true },
    });
    const stages: Record<string, number[]> = {
      'commit → fan-out statement (relay, JetStream, consumer)': [],
      'fan-out statement → job added': [],
      'job added → job started (BullMQ)': [],
      'job started → arrival (load, sign, POST)': [],
      'arrival → job finished (bookkeeping)': [],
    };
    const [relayStage, fanoutStage, queueStage, attemptStage, bookkeepingStage] = Object.values(stages) as number[][];
    for (const row of rows) {
      const job = await deps.queue.getJob(row.id);
      const committedAt = lastLatency.committed.get(row.eventId);
      const arrivedAt = arrivals.get(row.eventId);
      if (!job?.processedOn || !job.finishedOn || committedAt === undefined || arrivedAt === undefined) continue;
      const fanoutAt = row.createdAt.getTime();
      relayStage?.push(fanoutAt - committedAt);
      fanoutStage?.push(job.timestamp - fanoutAt);
      queueStage?.push(job.processedOn - job.timestamp);
      attemptStage?.push(arrivedAt - job.processedOn);
      bookkeepingStage?.push(job.finishedOn - arrivedAt);
    }
    console.log(`\nstages of the last (lat) round (${rows.length} deliveries; ms, millisecond clocks): median / p95`);
    for (const [stage, values] of Object.entries(stages)) {
      console.log(`  ${stage.padEnd(58)} ${fixed(percentile(values, 50)).padStart(7)} / ${fixed(percentile(values, 95))}`);
    }
  }
} finally {
  await undiciAgent.close();
  await watchedQueue.close();
  watchRedis.disconnect();
  await relay.close();
  await producerPool.end();
  await receiver.close();
  await app.close();
  await deps.close();
  await ctx.cleanup();
}
