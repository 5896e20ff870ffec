// The console's reads at scale, through the NATS operations the console calls: one organization with
// 1,000,000 calls and 200,000 SMS over the last 30 days (plus a second organization's traffic), seeded with
// COPY into a database of its own. Times the calls list (first page and deep, with and without filters,
// both directions), a call with its timeline, the overview (30 days, 7 days, today in a time zone), the
// messages list and a conversation, and prints median and p95 per operation. No timed assertion: the
// targets are printed next to the figures. The database is dropped at the end.
//
//   npm run bench -- console            (BENCH_CALLS=200000 BENCH_SMS=40000 BENCH_ROUNDS=50 for a quick run)
import { Bus, createLogger, encodeCursor, parseEnv } from '@voice/kit';
import { createTestContext, testIdentity, testSigningSecret } from '@voice/kit/testing';
import { telephonyRpc } from '@voice/proto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { connectDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';
import { contact, contacts, dayMs, seededLeadIds as leads, seedTelephonyVolume } from './support/volume.js';

const totalCalls = Number(process.env.BENCH_CALLS ?? 1_000_000);
const totalSms = Number(process.env.BENCH_SMS ?? 200_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const warmups = 20;
const days = 30;

const ctx = await createTestContext();
const identity = testIdentity({ scope: 'read' });
const otherOrg = testIdentity().org_id;
const client = new pg.Client({ connectionString: ctx.databaseUrl });
await client.connect();
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

let app: Awaited<ReturnType<typeof buildApp>> | undefined;
let deps: Awaited<ReturnType<typeof connectDeps>> | undefined;
let bus: Bus | undefined;
try {
  const heapOrder = process.env.BENCH_HEAP_ORDER === 'random' ? 'random' : 'created';
  const seeded = await seedTelephonyVolume(client, {
    heapOrder,
    orgId: identity.org_id,
    otherOrgId: otherOrg,
    calls: totalCalls,
    sms: totalSms,
    days,
    now,
  });
  const count = async (sql: string) => Number((await client.query(sql)).rows[0].count);
  console.log(
    `seeded in ${seeded.seconds.toFixed(0)} s (rows on disk in ${heapOrder} order): ${seeded.calls} calls and ${seeded.sms} SMS for the measured organization over ${days} days, ` +
      `${seeded.statusChanges} status changes, ${seeded.rollUpRows} roll-up rows (quarter hours, hours and days)`,
  );

  // The service as deployed for the console's reads: an API replica (no workers), called over NATS.
  deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, WORKERS: 'none', LOG_LEVEL: 'silent' }));
  app = await buildApp(deps);
  await app.ready();
  bus = await Bus.connect({
    url: ctx.natsUrl,
    name: 'bench-console',
    namespace: ctx.natsNamespace,
    logger: createLogger('bench', 'silent'),
    secret: testSigningSecret,
  });
  const caller = bus;

  /** The cursor a person reaches after paging `fraction` of the way through a list (found outside the timing). */
  const cursorAt = async (where: string, fraction: number, filters: Record<string, unknown>, direction: 'older' | 'newer' = 'older') => {
    const matching = await count(`SELECT count(*) FROM calls WHERE org_id = '${identity.org_id}' ${where}`);
    const row = (
      await client.query(
        `SELECT id, created_at FROM calls WHERE org_id = $1 ${where} ORDER BY created_at DESC, id DESC OFFSET ${Math.floor(matching * fraction)} LIMIT 1`,
        [identity.org_id],
      )
    ).rows[0] as { id: string; created_at: Date };
    return encodeCursor({ createdAt: row.created_at, id: row.id }, filters, direction);
  };
  const callIds = (await client.query(`SELECT id FROM calls WHERE org_id = $1 ORDER BY random() LIMIT 1000`, [identity.org_id])).rows.map(
    (row: { id: string }) => row.id,
  );
  const busyContact = (
    await client.query(`SELECT to_number FROM sms WHERE org_id = $1 AND direction = 'outbound' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, [
      identity.org_id,
    ])
  ).rows[0].to_number as string;
  const tenDaysAgo = iso(now - 10 * dayMs);
  const threeDaysAgo = iso(now - 3 * dayMs);
  const inbound = { direction: 'inbound' as const };

  const cases: Array<[string, number, (round: number) => Promise<unknown>]> = [
    ['calls list, first page', 100, () => caller.call(telephonyRpc.listCalls, identity, {})],
    ['calls list, page 90% deep', 100, await deepCase({}, '')],
    ['calls list, Newer page 90% deep', 100, await deepCase({}, '', 'newer')],
    ['calls, inbound, first page', 100, () => caller.call(telephonyRpc.listCalls, identity, inbound)],
    ['calls, inbound, 90% deep', 100, await deepCase(inbound, "AND direction = 'inbound'")],
    [
      'calls, inbound+completed+booked',
      100,
      () => caller.call(telephonyRpc.listCalls, identity, { direction: 'inbound', status: 'completed', outcome: 'booked' }),
    ],
    [
      'calls, date range 10-3 days ago',
      100,
      () => caller.call(telephonyRpc.listCalls, identity, { created_after: tenDaysAgo, created_before: threeDaysAgo }),
    ],
    ['calls, lead', 100, (round) => caller.call(telephonyRpc.listCalls, identity, { lead_id: leads[round % leads.length] as string })],
    [
      'calls, number (10 digits, ~10 calls)',
      100,
      (round) => caller.call(telephonyRpc.listCalls, identity, { number: contact((round * 7919) % contacts).slice(2) }),
    ],
    [
      'calls, number (5 digits)',
      100,
      (round) => caller.call(telephonyRpc.listCalls, identity, { number: String(20_000 + ((round * 37) % 1000)).padStart(5, '0') }),
    ],
    [
      'a call with its timeline',
      100,
      (round) => caller.call(telephonyRpc.getCall, identity, { id: callIds[round % callIds.length] as string }),
    ],
    [
      'overview, 30 days (Europe/Paris)',
      150,
      () => caller.call(telephonyRpc.getOverview, identity, { period: '30d', time_zone: 'Europe/Paris' }),
    ],
    [
      'overview, 7 days (Asia/Kolkata)',
      150,
      () => caller.call(telephonyRpc.getOverview, identity, { period: '7d', time_zone: 'Asia/Kolkata' }),
    ],
    [
      'overview, today (America/New_York)',
      150,
      () => caller.call(telephonyRpc.getOverview, identity, { period: 'today', time_zone: 'America/New_York' }),
    ],
    // What the console's overview asks: the period with its chart's series, and the previous period's totals.
    [
      'overview, 30 days by day (Europe/Paris)',
      150,
      () => caller.call(telephonyRpc.getOverview, identity, { period: '30d', time_zone: 'Europe/Paris', interval: 'day' }),
    ],
    [
      'overview, 30 days by day (Asia/Kolkata)',
      150,
      () => caller.call(telephonyRpc.getOverview, identity, { period: '30d', time_zone: 'Asia/Kolkata', interval: 'day' }),
    ],
    [
      'overview, today by hour (Asia/Kolkata)',
      150,
      () => caller.call(telephonyRpc.getOverview, identity, { period: 'today', time_zone: 'Asia/Kolkata', interval: 'hour' }),
    ],
    [
      'overview, the 30 days before (totals)',
      150,
      () =>
        caller.call(telephonyRpc.getOverview, identity, {
          from: iso(now - 59 * dayMs),
          to: iso(now - 29 * dayMs),
          time_zone: 'Europe/Paris',
        }),
    ],
    ['call stats, 30 days', 150, () => caller.call(telephonyRpc.callStats, identity, {})],
    ['messages list, first page', 100, () => caller.call(telephonyRpc.listSms, identity, {})],
    ['messages, delivered', 100, () => caller.call(telephonyRpc.listSms, identity, { status: 'delivered' })],
    ['a conversation (busiest number)', 100, () => caller.call(telephonyRpc.listSms, identity, { phone: busyContact })],
  ];

  async function deepCase(filters: Record<string, unknown>, where: string, direction: 'older' | 'newer' = 'older') {
    const cursor = await cursorAt(where, 0.9, filters, direction);
    return () => caller.call(telephonyRpc.listCalls, identity, { ...filters, cursor });
  }

  console.log(
    `median and p95 of ${rounds} rounds (after ${warmups} warm-ups), round trip of the NATS operation (limit 20), one operation at a time`,
  );
  const results: Array<{ name: string; median: number; p95: number; target: number }> = [];
  // Rounds interleave the cases, so drift on the shared machine spreads over all of them.
  const samples = cases.map(() => [] as number[]);
  for (let round = 0; round < warmups + rounds; round++) {
    for (const [index, [, , run]] of cases.entries()) {
      const start = process.hrtime.bigint();
      await run(round);
      if (round >= warmups) samples[index]?.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  for (const [index, [name, target]] of cases.entries()) {
    const sorted = [...(samples[index] ?? [])].sort((a, b) => a - b);
    results.push({ name, median: percentile(sorted, 50), p95: percentile(sorted, 95), target });
  }
  for (const result of results) {
    const verdict = result.p95 <= result.target ? 'OK' : 'OVER TARGET';
    console.log(
      `${result.name.padEnd(38)} median ${result.median.toFixed(1).padStart(6)} ms  p95 ${result.p95.toFixed(1).padStart(6)} ms  (target p95 < ${result.target} ms) ${verdict}`,
    );
  }
} finally {
  await bus?.drain().catch(() => {});
  await app?.close().catch(() => {});
  await deps?.close().catch(() => {});
  await client.end().catch(() => {});
  await ctx.cleanup();
}
