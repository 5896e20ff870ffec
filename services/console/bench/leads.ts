// The console's leads pages at scale: the platform (leads, telephony, mcp, webhooks and the console behind the
// gateway) with one organization holding 1,000,000 leads created over the last year (inserted with
// generate_series straight into the leads service's table, names from a few thousand first and last name
// pairs, one phone number and e-mail each, a quarter qualified). A person signed in asks for each page of the
// table below: a search by a name's first letters, a search by a phone number, a filtered list, a page deep in
// the list and a lead's page. What is measured is the console's own time (its Server-Timing header: session,
// the leads, telephony and webhooks services' NATS operations, the HTML), median and p95 over the rounds,
// beside the time at the HTTP client on 127.0.0.1. Rounds interleave the pages, so drift on a shared machine
// spreads over all of them. No timed assertion: the target is printed next to the figures.
//
//   npm run bench -- console/bench/leads     (BENCH_LEADS=200000 BENCH_ROUNDS=20 for a quick run)
import { startPlatform } from '@voice/gateway/testing';
import { encodeCursor } from '@voice/kit';
import pg from 'pg';
import { startSession } from '../src/domain/sessions.js';
import { invitePerson } from '../test/support/harness.js';

const totalLeads = Number(process.env.BENCH_LEADS ?? 1_000_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 100);
const warmups = 5;
/** The issue's target for every leads page. */
const targetMs = 100;

const firstNames = ['Ada', 'Grace', 'Alan', 'Hedy', 'Katherine', 'Dorothy', 'Mary', 'Annie', 'Radia', 'Barbara', 'Frances', 'Edsger'];
const lastNames = ['Lovelace', 'Hopper', 'Turing', 'Lamarr', 'Johnson', 'Vaughan', 'Jackson', 'Easley', 'Perlman', 'Liskov'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

// Telephony without workers: nothing is dialled while the pages are measured.
const platform = await startPlatform({ services: ['telephony', 'leads', 'mcp', 'webhooks', 'console'], telephony: { WORKERS: 'none' } });
const client = new pg.Client({ connectionString: platform.ctx.databaseUrl });
try {
  await client.connect();
  const { orgId } = await platform.org({ plan: 'enterprise' });
  const other = await platform.org({ plan: 'enterprise' });
  await client.query('SET search_path TO leads');
  const started = performance.now();
  // Lead n: a first name, a number and a last name (`Hedy 31 Lamarr`), so a name's first letters (`Hedy 31
  // Lam`) match a few leads among a million; a phone number (+1 2xxx…) and an e-mail of its own; created about
  // every 31 s over a year, newest first; a quarter qualified; every tenth lead another organization's.
  await client.query(
    `INSERT INTO leads (id, org_id, name, phone, email, company, status, qualified_at, source, tags, custom_fields, created_at, updated_at)
     SELECT 'lead_bench' || lpad(n::text, 10, '0'),
            CASE WHEN n % 10 = 0 THEN $2 ELSE $1 END,
            ($3::text[])[1 + n % 12] || ' ' || (n % 997) || ' ' || ($4::text[])[1 + (n / 12) % 10],
            '+1' || (2000000000 + n)::text,
            'person' || n || '@example.com',
            'Company ' || (n % 5000),
            (CASE n % 4 WHEN 0 THEN 'qualified' WHEN 1 THEN 'contacted' WHEN 2 THEN 'new' ELSE 'won' END)::"LeadStatus",
            CASE WHEN n % 4 = 0 THEN now() - (n * 31 || ' seconds')::interval + interval '1 hour' END,
            (CASE n % 3 WHEN 0 THEN 'api' WHEN 1 THEN 'inbound_call' ELSE 'referral' END)::"LeadSource",
            '{}', '{}', now() - (n * 31 || ' seconds')::interval, now()
     FROM generate_series(1, $5::int) AS n`,
    [orgId, other.orgId, firstNames, lastNames, totalLeads],
  );
  await client.query('ANALYZE leads');
  console.log(`seeded ${totalLeads} leads in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const person = await invitePerson(platform.console.deps, orgId, 'owner');
  const cookie = `console_session=${await startSession(platform.console.deps, person.userId, orgId)}`;

  // Where the deep page starts (90% down the organization's list) and leads to open, found outside the timing.
  const deep = (
    await client.query('SELECT id, created_at FROM leads WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1', [
      orgId,
      Math.floor(totalLeads * 0.9 * 0.9),
    ])
  ).rows[0] as { id: string; created_at: Date };
  const deepCursor = encodeCursor({ createdAt: deep.created_at, id: deep.id }, {}, 'older');
  const ours = (n: number) => (n % 10 === 0 ? n + 1 : n);
  const leadNumber = (round: number) => ours(1 + ((round * 7919) % (totalLeads - 1)));
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

  const pages: Array<{ name: string; path: (round: number) => string }> = [
    { name: 'first page', path: () => '/dashboard/leads' },
    {
      name: 'search, a name’s first letters',
      path: (round) =>
        `/dashboard/leads?q=${encodeURIComponent(`${firstNames[round % 12]} ${(round * 31) % 997} ${lastNames[round % 10]?.slice(0, 3)}`)}`,
    },
    { name: 'search, a phone number', path: (round) => `/dashboard/leads?q=${encodeURIComponent(`+1${2000000000 + leadNumber(round)}`)}` },
    {
      name: 'filtered: qualified, referral, 60 days',
      path: () => `/dashboard/leads?status=qualified&qualified=yes&source=referral&from=${day(90)}&to=${day(30)}`,
    },
    { name: 'a page 90% deep', path: () => `/dashboard/leads?cursor=${encodeURIComponent(deepCursor)}` },
    { name: 'a lead', path: (round) => `/dashboard/leads/lead_bench${String(leadNumber(round)).padStart(10, '0')}` },
    { name: 'recent qualified leads', path: () => '/dashboard/leads/recent-qualified' },
  ];

  const get = async (path: string) => {
    const start = process.hrtime.bigint();
    const response = await fetch(`${platform.console.url}${path}`, { headers: { cookie }, redirect: 'manual' });
    await response.arrayBuffer();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    const server = Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN);
    return { status: response.status, elapsed, server };
  };
  for (const page of pages) {
    const { status } = await get(page.path(0));
    if (status !== 200) console.log(`${page.name.padEnd(40)} answers ${status}: measured anyway`);
  }

  console.log(
    `median and p95 of ${rounds} rounds (after ${warmups} warm-ups), one request at a time: the console's Server-Timing, ` +
      '(the time at the HTTP client on 127.0.0.1 in brackets)',
  );
  const samples = pages.map(() => ({ client: [] as number[], server: [] as number[] }));
  for (let round = 0; round < warmups + rounds; round++) {
    for (const [index, page] of pages.entries()) {
      const { elapsed, server } = await get(page.path(round));
      if (round >= warmups) {
        samples[index]?.client.push(elapsed);
        samples[index]?.server.push(server);
      }
    }
  }
  for (const [index, page] of pages.entries()) {
    const clientTimes = [...(samples[index]?.client ?? [])].sort((a, b) => a - b);
    const serverTimes = [...(samples[index]?.server ?? [])].sort((a, b) => a - b);
    const figure = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1).padStart(6);
    const p95 = percentile(serverTimes, 95);
    console.log(
      `${page.name.padEnd(40)} median ${figure(serverTimes, 50)} ms [${figure(clientTimes, 50)}]  p95 ${figure(serverTimes, 95)} ms [${figure(clientTimes, 95)}]  ` +
        `(target p95 < ${targetMs} ms) ${p95 <= targetMs ? 'OK' : 'OVER TARGET'}`,
    );
  }
} finally {
  await client.end().catch(() => {});
  await platform.close();
}
