// The console's reads at scale, through the NATS operations the console calls: one organization with
// 1,000,000 calls and 200,000 SMS over the last 30 days (plus a second organization's traffic), seeded with
// COPY into a database of its own. Times the calls list (first page and deep, with and without filters,
// both directions), a call with its timeline, the overview (30 days, 7 days, today in a time zone), the
// messages list and a conversation, and prints median and p95 per operation. No timed assertion: the
// targets are printed next to the figures. The database is dropped at the end.
//
//   npm run bench -- console            (BENCH_CALLS=200000 BENCH_SMS=40000 BENCH_ROUNDS=50 for a quick run)
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Bus, createLogger, encodeCursor, parseEnv } from '@voice/kit';
import { createTestContext, testIdentity, testSigningSecret } from '@voice/kit/testing';
import { callOutcomes, telephonyRpc } from '@voice/proto';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { buildApp } from '../src/app.js';
import { connectDeps } from '../src/deps.js';
import { envSchema } from '../src/env.js';

const totalCalls = Number(process.env.BENCH_CALLS ?? 1_000_000);
const totalSms = Number(process.env.BENCH_SMS ?? 200_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const warmups = 20;
const days = 30;
const dayMs = 24 * 60 * 60 * 1000;

const ctx = await createTestContext();
const identity = testIdentity({ scope: 'read' });
const otherOrg = testIdentity().org_id;
const client = new pg.Client({ connectionString: ctx.databaseUrl });
await client.connect();
await client.query('SET search_path TO telephony');

// A deterministic generator, so every run seeds the same data.
let seed = 0x2f6b_1c3d;
const random = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
};
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
const contacts = 100_000;
const contact = (n: number) => `+1415${String(2_000_000 + n).padStart(7, '0')}`;
const leads = Array.from({ length: 20_000 }, (_, i) => `lead_${String(i).padStart(20, '0')}`);
const ourNumber = '+15005550006';
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const N = '\\N';

/** COPY rows (arrays of text fields, `\N` for null) into a table, generated lazily. */
async function copyRows(table: string, columns: string[], rows: () => Generator<string[]>) {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  const lines = (function* () {
    let chunk = '';
    for (const row of rows()) {
      chunk += `${row.join('\t')}\n`;
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  })();
  await pipeline(Readable.from(lines), stream);
}

const callColumns = [
  'id',
  'org_id',
  'direction',
  'from_number',
  'to_number',
  'lead_id',
  'status',
  'outcome',
  'end_reason',
  'source',
  'duration_seconds',
  'cost_amount',
  'cost_currency',
  'transcript',
  'summary',
  'metadata',
  'created_at',
  'started_at',
  'ended_at',
  'updated_at',
];
const transcript = 'Agent: Hello, this is the assistant calling on behalf of the team. Is now a good time?\\nCallee: Sure, go ahead.';

function* calls(count: number, orgId: string, prefix: string): Generator<string[]> {
  for (let i = 0; i < count; i++) {
    const created = now - random() * days * dayMs;
    const inbound = random() < 1 / 3;
    const roll = random();
    const status =
      roll < 0.8
        ? 'completed'
        : roll < 0.86
          ? 'no_answer'
          : roll < 0.9
            ? 'busy'
            : roll < 0.93
              ? 'failed'
              : roll < 0.95
                ? 'canceled'
                : 'queued';
    const completed = status === 'completed';
    const duration = completed ? 20 + Math.floor(random() * 280) : status === 'queued' || status === 'canceled' ? null : 0;
    const started = completed ? created + 8_000 : null;
    const ended = status === 'queued' ? null : created + 8_000 + (duration ?? 0) * 1000;
    const other = contact(Math.floor(random() * contacts));
    yield [
      `call_${prefix}${String(i).padStart(16, '0')}`,
      orgId,
      inbound ? 'inbound' : 'outbound',
      inbound ? other : ourNumber,
      inbound ? ourNumber : other,
      random() < 0.3 ? pick(leads) : N,
      status,
      completed ? pick(callOutcomes) : N,
      status === 'queued' ? N : completed ? 'hangup' : status,
      inbound ? 'inbound' : 'api',
      duration === null ? N : String(duration),
      completed ? String(Math.ceil((duration ?? 0) / 60) * 2) : N,
      completed ? 'USD' : N,
      completed ? transcript : N,
      completed ? 'Contact was interested and asked for a proposal.' : N,
      '{}',
      iso(created),
      started === null ? N : iso(started),
      ended === null ? N : iso(ended),
      iso(ended ?? created),
    ];
  }
}

function* messages(count: number, orgId: string, prefix: string): Generator<string[]> {
  for (let i = 0; i < count; i++) {
    const created = now - random() * days * dayMs;
    const inbound = random() < 0.4;
    const roll = random();
    const status = inbound ? 'received' : roll < 0.85 ? 'delivered' : roll < 0.92 ? 'sent' : roll < 0.96 ? 'undelivered' : 'failed';
    const other = contact(Math.floor(random() * contacts));
    const segments = 1 + Math.floor(random() * 2);
    yield [
      `sms_${prefix}${String(i).padStart(16, '0')}`,
      orgId,
      inbound ? 'inbound' : 'outbound',
      inbound ? other : ourNumber,
      inbound ? ourNumber : other,
      'Thanks for your time today, here is the link we talked about.',
      String(segments),
      status,
      inbound ? 'inbound' : 'api',
      inbound ? N : String(segments),
      inbound ? N : 'USD',
      '{}',
      iso(created),
      status === 'failed' ? N : iso(created + 1000),
      status === 'delivered' ? iso(created + 3000) : N,
      iso(created + 3000),
    ];
  }
}

const smsColumns = [
  'id',
  'org_id',
  'direction',
  'from_number',
  'to_number',
  'body',
  'segments',
  'status',
  'source',
  'cost_amount',
  'cost_currency',
  'metadata',
  'created_at',
  'sent_at',
  'delivered_at',
  'updated_at',
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

let app: Awaited<ReturnType<typeof buildApp>> | undefined;
let deps: Awaited<ReturnType<typeof connectDeps>> | undefined;
let bus: Bus | undefined;
try {
  const started = Date.now();
  // Bulk load as a restore would: indexes dropped and rebuilt after, triggers off (session_replication_role),
  // then the derived tables (timelines, roll-ups) computed once in SQL, as the migration backfills them.
  const indexes = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'telephony' AND tablename IN ('calls', 'sms', 'call_status_changes')
       AND indexname NOT LIKE '%_pkey'`,
  );
  for (const index of indexes.rows) await client.query(`DROP INDEX telephony."${index.indexname}"`);
  await client.query('SET session_replication_role = replica');
  await copyRows('calls', callColumns, () => calls(totalCalls, identity.org_id, 'a'));
  await copyRows('calls', callColumns, () => calls(Math.round(totalCalls / 10), otherOrg, 'b'));
  await copyRows('sms', smsColumns, () => messages(totalSms, identity.org_id, 'a'));
  await copyRows('sms', smsColumns, () => messages(Math.round(totalSms / 10), otherOrg, 'b'));
  await client.query(`
    INSERT INTO call_status_changes (call_id, org_id, status, at)
    SELECT c.id, c.org_id, s.status, s.at FROM calls c
    CROSS JOIN LATERAL (VALUES
      (1, CASE WHEN c.direction = 'inbound' THEN 'ringing' ELSE 'queued' END::"CallStatus", c.created_at),
      (2, CASE WHEN c.direction = 'outbound' AND c.status NOT IN ('queued', 'canceled') THEN 'ringing'::"CallStatus" END, c.created_at + interval '2 seconds'),
      (3, CASE WHEN c.started_at IS NOT NULL THEN 'in_progress'::"CallStatus" END, c.started_at),
      (4, CASE WHEN c.status NOT IN ('queued', 'ringing', 'in_progress') THEN c.status END, c.ended_at)
    ) AS s(step, status, at)
    WHERE s.status IS NOT NULL ORDER BY c.created_at, s.step`);
  await client.query(`
    INSERT INTO call_hours (org_id, hour, direction, status, outcome, answered, calls, duration_seconds, with_duration, cost_amount)
    SELECT org_id, date_trunc('hour', created_at, 'UTC'), direction, status, coalesce(outcome::text, 'none'), started_at IS NOT NULL,
           count(*), coalesce(sum(duration_seconds), 0), count(duration_seconds), coalesce(sum(cost_amount), 0)
    FROM calls GROUP BY 1, 2, 3, 4, 5, 6`);
  await client.query(`
    INSERT INTO sms_hours (org_id, hour, direction, status, messages, segments, cost_amount)
    SELECT org_id, date_trunc('hour', created_at, 'UTC'), direction, status, count(*), sum(segments), coalesce(sum(cost_amount), 0)
    FROM sms GROUP BY 1, 2, 3, 4`);
  await client.query('SET session_replication_role = origin');
  await client.query("SET maintenance_work_mem = '256MB'");
  for (const index of indexes.rows) await client.query(index.indexdef);
  await client.query('ANALYZE calls; ANALYZE sms; ANALYZE call_status_changes; ANALYZE call_hours; ANALYZE sms_hours');
  const seeded = (Date.now() - started) / 1000;
  const count = async (sql: string) => Number((await client.query(sql)).rows[0].count);
  console.log(
    `seeded in ${seeded.toFixed(0)} s: ${await count(`SELECT count(*) FROM calls WHERE org_id = '${identity.org_id}'`)} calls and ` +
      `${await count(`SELECT count(*) FROM sms WHERE org_id = '${identity.org_id}'`)} SMS for the measured organization over ${days} days, ` +
      `${await count('SELECT count(*) FROM call_status_changes')} status changes, ${await count('SELECT count(*) FROM call_hours')} roll-up rows`,
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
