// Keyset pagination at scale: the calls list over 1,000,000 calls of one organization, first page versus
// a page deep in the list (and the same with a filter). Builds a scratch database, bulk-inserts with
// generate_series, times both through the service's own store code, prints the figures and the ratio,
// and drops the database.
//
//   npx tsx --conditions=source services/telephony/bench/calls-list.ts        (BENCH_CALLS=200000 for a quick run)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeCursor, newId, prismaAdapter } from '@voice/kit';
import pg from 'pg';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { listCalls } from '../src/store/calls.js';

const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/voice';
const total = Number(process.env.BENCH_CALLS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 200);
const warmups = 50;
const deepFraction = 0.9;

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Times two queries alternately (first, deep, first, deep, …) so both see the same cache, pool and JIT
 * state; timing them in two blocks lets drift between the blocks pass for a difference between them.
 */
async function timePair(first: () => Promise<unknown>, deep: () => Promise<unknown>): Promise<[number, number]> {
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < warmups + runs; i++) {
    for (const [index, work] of [first, deep].entries()) {
      const start = process.hrtime.bigint();
      await work();
      if (i >= warmups) samples[index]?.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return [median(samples[0]), median(samples[1])];
}

const database = `voice_bench_telephony_${Date.now()}`;
const url = withDatabase(serverUrl, database);
await admin((client) => client.query(`CREATE DATABASE "${database}"`));
const client = new pg.Client({ connectionString: url });
await client.connect();
const prisma = new PrismaClient({ adapter: prismaAdapter(url, 'telephony') });
try {
  // The service's own migrations, applied in its schema.
  const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
  await client.query('CREATE SCHEMA telephony; SET search_path TO telephony');
  for (const entry of readdirSync(migrations).sort()) {
    if (!/^\d+_/.test(entry)) continue;
    await client.query(readFileSync(join(migrations, entry, 'migration.sql'), 'utf8'));
  }

  const orgId = newId('org');
  const started = Date.now();
  // One organization's year of calls: one every ~30 s, with some timestamps shared (ties broken by id),
  // plus a second organization so the index is not one tenant's alone.
  await client.query(
    `INSERT INTO calls (id, org_id, direction, from_number, to_number, status, outcome, source, duration_seconds, metadata, created_at, updated_at)
     SELECT 'call_' || lpad(to_hex(i), 20, '0'),
            CASE WHEN i % 10 = 0 THEN 'org_other000000' ELSE $1 END,
            (CASE WHEN i % 3 = 0 THEN 'inbound' ELSE 'outbound' END)::"CallDirection",
            '+15005550006', '+1415' || lpad((i % 10000000)::text, 7, '0'),
            'completed'::"CallStatus",
            (ARRAY['qualified_lead','booked','message_taken','not_interested','voicemail','wrong_number','spam'])[1 + i % 7]::"CallOutcome",
            'api'::"CallSource", 30 + i % 300, '{}'::jsonb,
            now() - make_interval(secs => (i / 2) * 60), now()
     FROM generate_series(1, $2::int) AS i`,
    [orgId, total],
  );
  await client.query('ANALYZE calls');
  const insertSeconds = (Date.now() - started) / 1000;
  const orgCalls = Number((await client.query('SELECT count(*) FROM calls WHERE org_id = $1', [orgId])).rows[0].count);

  const measure = async (filters: { direction?: 'inbound' }) => {
    const where = filters.direction ? 'AND direction = $3' : '';
    const matching = Number(
      (
        await client.query(
          `SELECT count(*) FROM calls WHERE org_id = $1 ${where.replace('$3', '$2')}`,
          filters.direction ? [orgId, filters.direction] : [orgId],
        )
      ).rows[0].count,
    );
    // The position a client reaches after paging 90% of the way (found once, outside the timing).
    const offset = Math.floor(matching * deepFraction);
    const row = (
      await client.query(
        `SELECT id, created_at FROM calls WHERE org_id = $1 ${where.replace('$3', '$2')} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT 1`,
        filters.direction ? [orgId, filters.direction] : [orgId],
      )
    ).rows[0] as { id: string; created_at: Date };
    const cursor = encodeCursor({ createdAt: row.created_at, id: row.id }, filters);
    const [first, deep] = await timePair(
      () => listCalls(prisma, orgId, { limit: 20, ...filters }),
      () => listCalls(prisma, orgId, { limit: 20, cursor, ...filters }),
    );
    const page = await listCalls(prisma, orgId, { limit: 20, cursor, ...filters });
    if (page.data.length !== 20) throw new Error('deep page came back short');
    return { matching, offset, first, deep };
  };

  const plain = await measure({});
  const filtered = await measure({ direction: 'inbound' });
  const line = (name: string, m: Awaited<ReturnType<typeof measure>>) =>
    `${name.padEnd(22)} rows ${String(m.matching).padStart(8)}  first page ${m.first.toFixed(2).padStart(6)} ms  page at row ${String(m.offset).padStart(8)} ${m.deep.toFixed(2).padStart(6)} ms  ratio ${(m.deep / m.first).toFixed(2)}`;
  console.log(
    `telephony calls list, keyset pagination: ${total} calls inserted in ${insertSeconds.toFixed(1)} s (${orgCalls} for the measured organization), median of ${runs} alternating runs after ${warmups} warm-ups, limit 20`,
  );
  console.log(line('all calls', plain));
  console.log(line('direction=inbound', filtered));
  const worst = Math.max(plain.deep / plain.first, filtered.deep / filtered.first);
  console.log(`deep page / first page, worst: ${worst.toFixed(2)} (target ≤ 1.5) ${worst <= 1.5 ? 'OK' : 'OVER TARGET'}`);
} finally {
  await prisma.$disconnect();
  await client.end();
  await admin((admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
}
