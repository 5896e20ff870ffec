// The console's product pages at scale: the platform (telephony, leads, mcp, webhooks and the console behind
// the gateway) with one organization holding 1,000,000 calls and 200,000 SMS over the last 30 days (and
// 20,000 leads), seeded as telephony's bench seeds it (telephony/bench/support/volume.ts). A person signed
// in (Europe/Paris; a second one in Asia/Kolkata, whose days begin inside UTC hours) asks for each page of
// the table below; the time is measured at the HTTP client on 127.0.0.1 against the console's own address,
// so it is the console's answer (session, the gateway's and the other services' NATS operations, the HTML)
// without the gateway's proxying. The console's Server-Timing header is printed beside it. Rounds interleave
// the pages, so drift on a shared machine spreads over all of them. A page that answers 404 is not built in
// this branch: it is printed as such and skipped. No timed assertion: the target is printed next to the figures.
//
//   npm run bench -- console/bench/pages     (BENCH_CALLS=200000 BENCH_SMS=40000 BENCH_ROUNDS=20 for a quick run)
import { startPlatform } from '@voice/gateway/testing';
import { encodeCursor } from '@voice/kit';
import pg from 'pg';
import { contact, contacts, dayMs, seededLeadIds, seedTelephonyVolume } from '../../telephony/bench/support/volume.js';
import { startSession } from '../src/domain/sessions.js';
import { setUserTimeZone } from '../src/store/users.js';
import { invitePerson } from '../test/support/harness.js';

const totalCalls = Number(process.env.BENCH_CALLS ?? 1_000_000);
const totalSms = Number(process.env.BENCH_SMS ?? 200_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 100);
const warmups = 5;
const days = 30;
/** The target for the overview; the other pages are printed without one. */
const overviewTargetMs = 150;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

// Telephony without workers: the seeded queued calls must not be dialled while the pages are measured.
const platform = await startPlatform({
  services: ['telephony', 'leads', 'mcp', 'webhooks', 'console'],
  telephony: { WORKERS: 'none' },
});
const client = new pg.Client({ connectionString: platform.ctx.databaseUrl });
try {
  await client.connect();
  const { orgId } = await platform.org({ plan: 'enterprise' });
  const other = await platform.org({ plan: 'enterprise' });
  const now = Date.now();
  const heapOrder = process.env.BENCH_HEAP_ORDER === 'random' ? 'random' : 'created';
  const seeded = await seedTelephonyVolume(client, {
    orgId,
    otherOrgId: other.orgId,
    calls: totalCalls,
    sms: totalSms,
    days,
    now,
    heapOrder,
  });
  // The leads the calls name, a quarter of them qualified, created over 60 days (the overview counts them).
  await client.query('SET search_path TO leads');
  await client.query(
    `INSERT INTO leads (id, org_id, name, company, status, qualified_at, source, tags, custom_fields, created_at, updated_at)
     SELECT id, $1, 'Lead ' || n, 'Company ' || (n % 500), (CASE WHEN n % 4 = 0 THEN 'qualified' ELSE 'contacted' END)::"LeadStatus",
            CASE WHEN n % 4 = 0 THEN now() - ((n % 30) || ' days')::interval END, 'api', '{}', '{}',
            now() - ((n % 60) || ' days')::interval - ((n % 1440) || ' minutes')::interval, now()
     FROM unnest($2::text[]) WITH ORDINALITY AS l(id, n)`,
    [orgId, seededLeadIds],
  );
  await client.query('ANALYZE leads');
  await client.query('SET search_path TO telephony');
  console.log(
    `seeded in ${seeded.seconds.toFixed(0)} s (rows on disk in ${heapOrder} order): ${seeded.calls} calls and ${seeded.sms} SMS over ${days} days, ${seededLeadIds.length} leads, ` +
      `${seeded.rollUpRows} roll-up rows`,
  );

  // People signed in (a session each, as the sign-in form makes it) in two time zones.
  const session = async (timeZone: string) => {
    const person = await invitePerson(platform.console.deps, orgId, 'owner');
    await setUserTimeZone(platform.console.deps.prisma, person.userId, timeZone);
    return `console_session=${await startSession(platform.console.deps, person.userId, orgId)}`;
  };
  const paris = await session('Europe/Paris');
  const kolkata = await session('Asia/Kolkata');

  // Where the calls list's deep pages and a call's page lead (found outside the timing).
  const deep = (
    await client.query(`SELECT id, created_at FROM calls WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`, [
      orgId,
      Math.floor(seeded.calls * 0.9),
    ])
  ).rows[0] as { id: string; created_at: Date };
  const deepCursor = encodeCursor({ createdAt: deep.created_at, id: deep.id }, {}, 'older');
  const callIds = (await client.query('SELECT id FROM calls WHERE org_id = $1 ORDER BY random() LIMIT 1000', [orgId])).rows.map(
    (row: { id: string }) => row.id,
  );
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  /**
   * The pages measured, one line each. The calls and messages pages come from other changes: a page that
   * answers 404 here is printed as not built.
   */
  const pages: Array<{ name: string; path: (round: number) => string; cookie?: string; target?: number }> = [
    { name: 'overview, today', path: () => '/dashboard?period=today', target: overviewTargetMs },
    { name: 'overview, 7 days', path: () => '/dashboard?period=7d', target: overviewTargetMs },
    { name: 'overview, 30 days', path: () => '/dashboard?period=30d', target: overviewTargetMs },
    { name: 'overview, 30 days (Asia/Kolkata)', path: () => '/dashboard?period=30d', cookie: kolkata, target: overviewTargetMs },
    { name: 'overview, today (Asia/Kolkata)', path: () => '/dashboard?period=today', cookie: kolkata, target: overviewTargetMs },
    { name: 'calls list, first page', path: () => '/dashboard/calls' },
    { name: 'calls list, 90% deep', path: () => `/dashboard/calls?cursor=${encodeURIComponent(deepCursor)}` },
    { name: 'calls list, inbound completed booked', path: () => '/dashboard/calls?direction=inbound&status=completed&outcome=booked' },
    { name: 'calls list, 10 to 3 days ago', path: () => `/dashboard/calls?from=${day(now - 10 * dayMs)}&to=${day(now - 3 * dayMs)}` },
    { name: 'calls list, a number', path: (round) => `/dashboard/calls?number=${contact((round * 7919) % contacts).slice(2)}` },
    { name: 'calls list, a lead', path: (round) => `/dashboard/calls?lead_id=${seededLeadIds[round % seededLeadIds.length]}` },
    { name: 'a call', path: (round) => `/dashboard/calls/${callIds[round % callIds.length]}` },
    { name: 'messages list, first page', path: () => '/dashboard/messages' },
    { name: 'messages list, delivered', path: () => '/dashboard/messages?direction=outbound&status=delivered' },
  ];

  const get = async (path: string, cookie: string) => {
    const start = process.hrtime.bigint();
    const response = await fetch(`${platform.console.url}${path}`, { headers: { cookie }, redirect: 'manual' });
    await response.arrayBuffer();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    const server = Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN);
    return { status: response.status, elapsed, server };
  };

  // Which pages exist here: one request each (a 404 is a page another change builds).
  const built: typeof pages = [];
  for (const page of pages) {
    const { status } = await get(page.path(0), page.cookie ?? paris);
    if (status === 404) console.log(`${page.name.padEnd(40)} not built`);
    else if (status !== 200) console.log(`${page.name.padEnd(40)} answers ${status}: measured anyway`);
    if (status !== 404) built.push(page);
  }

  console.log(
    `median and p95 of ${rounds} rounds (after ${warmups} warm-ups), one request at a time, at the HTTP client on 127.0.0.1 ` +
      "(the console's own Server-Timing in brackets)",
  );
  const samples = built.map(() => ({ client: [] as number[], server: [] as number[] }));
  for (let round = 0; round < warmups + rounds; round++) {
    for (const [index, page] of built.entries()) {
      const { elapsed, server } = await get(page.path(round), page.cookie ?? paris);
      if (round >= warmups) {
        samples[index]?.client.push(elapsed);
        samples[index]?.server.push(server);
      }
    }
  }
  for (const [index, page] of built.entries()) {
    const clientTimes = [...(samples[index]?.client ?? [])].sort((a, b) => a - b);
    const serverTimes = [...(samples[index]?.server ?? [])].sort((a, b) => a - b);
    const figure = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1).padStart(6);
    const p95 = percentile(clientTimes, 95);
    const verdict = page.target === undefined ? '' : `(target p95 < ${page.target} ms) ${p95 <= page.target ? 'OK' : 'OVER TARGET'}`;
    console.log(
      `${page.name.padEnd(40)} median ${figure(clientTimes, 50)} ms [${figure(serverTimes, 50)}]  p95 ${figure(clientTimes, 95)} ms [${figure(serverTimes, 95)}]  ${verdict}`,
    );
  }
} finally {
  await client.end().catch(() => {});
  await platform.close();
}
