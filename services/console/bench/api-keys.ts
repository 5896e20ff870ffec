// The API keys page at scale: `/dashboard/settings/api` for an organization with 1,000 keys and 1,000,000
// audit records, rendered through the gateway (session check, the gateway's key list and monthly use over
// NATS, the HTML). Seeds its own test database with generate_series, signs in, times the renders and
// prints the median and p95 (target: well under 100 ms), each next to the console's own server time from
// the Server-Timing header it sets. Nothing here asserts a timing.
//
//   npm run bench -- console        (BENCH_AUDIT_RECORDS=100000 BENCH_RUNS=20 BENCH_ROUNDS=1 for a quick run)
import { startPlatform } from '@voice/gateway/testing';
import { keysFor } from '../src/domain/api-keys.js';
import { Browser, invitePerson } from '../test/support/harness.js';

const keyCount = Number(process.env.BENCH_KEYS ?? 1_000);
const auditRecords = Number(process.env.BENCH_AUDIT_RECORDS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 100);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmups = 10;
const page = '/dashboard/settings/api';

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

// mcp too: every page asks it for the approvals count, and without it each page waits out that count's timeout.
const platform = await startPlatform({ services: ['console', 'mcp'] });
try {
  const { orgId } = await platform.org({ plan: 'enterprise' });
  const prisma = platform.gateway.deps.prisma;
  const seeding = Date.now();
  // Keys made as the console makes them (prefix, suffix, lineage), spread over the last year; the operator's
  // key from platform.org is one more.
  await prisma.$executeRawUnsafe(
    `INSERT INTO api_keys (id, org_id, hash, display_prefix, display_suffix, name, scope, monthly_quota, lineage_id, created_at, last_used_at)
     SELECT 'key_bench' || lpad(i::text, 12, '0'), $1, md5('bench' || i) || md5('key' || i), 'vk_live_' || lpad(i::text, 6, '0'),
            lpad(to_hex(i), 4, '0'), 'Bench key ' || i, (CASE WHEN i % 2 = 0 THEN 'read' ELSE 'read-write' END)::"KeyScope",
            10000, 'key_bench' || lpad(i::text, 12, '0'), now() - (i || ' hours')::interval, now() - (i || ' minutes')::interval
     FROM generate_series(1, $2::int) AS i`,
    orgId,
    keyCount - 1,
  );
  // A year of API calls by those keys, newest first in the primary key's order.
  await prisma.$executeRawUnsafe(
    `INSERT INTO audit_records (id, org_id, actor_type, key_id, method, path, status, latency_ms, request_id, created_at)
     SELECT 'aud_bench' || lpad(i::text, 12, '0'), $1, 'key'::"AuditActor", 'key_bench' || lpad((1 + i % ($3::int - 1))::text, 12, '0'),
            'GET', '/api/v1/phone/calls', CASE WHEN i % 50 = 0 THEN 429 ELSE 200 END, 5 + i % 40, 'req_' || i,
            now() - (i * 30 || ' seconds')::interval
     FROM generate_series(1, $2::int) AS i`,
    orgId,
    auditRecords,
    keyCount,
  );
  await prisma.$executeRawUnsafe('ANALYZE api_keys; ANALYZE audit_records');
  console.log(`seeded ${keyCount} keys and ${auditRecords.toLocaleString('en')} audit records in ${Date.now() - seeding} ms`);

  const person = await invitePerson(platform.console.deps, orgId, 'owner');
  const browser = new Browser(platform.gateway.app, '198.51.100.7');
  const signedIn = await browser.signIn(person.email, person.password);
  if (signedIn.statusCode !== 303) throw new Error(`sign-in failed: ${signedIn.statusCode}`);

  // Through the gateway, as a browser reaches it; and the console alone (the same cookies), which tells the
  // proxy's share from the console's (session check, NATS key list, HTML).
  const direct = new Browser(platform.console.app, '198.51.100.7');
  for (const [name, value] of browser.cookies) direct.cookies.set(name, value);
  /** `work` gives the answer's size and, when it has one, the console's own time from its Server-Timing header. */
  const timed = async (work: () => Promise<{ bytes: number; serverMs?: number }>) => {
    const samples: number[] = [];
    const serverSamples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < warmups + runs; i++) {
      const start = process.hrtime.bigint();
      const answer = await work();
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      bytes = answer.bytes;
      if (i < warmups) continue;
      samples.push(elapsed);
      if (answer.serverMs !== undefined) serverSamples.push(answer.serverMs);
    }
    return { samples, serverSamples, bytes };
  };
  const timings = (client: Browser) =>
    timed(async () => {
      const response = await client.get(page);
      if (response.statusCode !== 200) throw new Error(`${page} answered ${response.statusCode}`);
      const serverMs = /console;dur=([\d.]+)/.exec(String(response.headers['server-timing'] ?? ''))?.[1];
      if (serverMs === undefined) throw new Error(`${page} has no Server-Timing of the console`);
      return { bytes: response.body.length, serverMs: Number(serverMs) };
    });
  // The console's two NATS calls to the gateway (the organization, then a page of its keys with this month's use).
  const signedInOwner = {
    sessionHash: '',
    csrfToken: '',
    user: { id: person.userId, name: 'Bench', email: person.email, timeZone: 'UTC' },
    orgId,
    role: 'owner' as const,
    mode: 'live' as const,
    memberships: [{ orgId, role: 'owner' as const }],
  };
  const keyList = () =>
    timed(async () => ({
      bytes: (await (await keysFor({ bus: platform.console.deps.bus }, signedInOwner, 'req_bench')).page(undefined)).data.length,
    }));
  // Rounds of each measurement in turn, so a burst of load on a shared machine spreads over all of them
  // rather than landing on one; the figures are over every round's renders.
  const series = {
    'through the gateway': [] as number[],
    '  of which the console (Server-Timing)': [] as number[],
    'the console alone': [] as number[],
    '  of which its server time (Server-Timing)': [] as number[],
    'its key list (NATS)': [] as number[],
  };
  let bytes = 0;
  for (let round = 1; round <= rounds; round++) {
    const viaGateway = await timings(browser);
    const consoleAlone = await timings(direct);
    const gatewayKeyList = await keyList();
    bytes = viaGateway.bytes;
    series['through the gateway'].push(...viaGateway.samples);
    series['  of which the console (Server-Timing)'].push(...viaGateway.serverSamples);
    series['the console alone'].push(...consoleAlone.samples);
    series['  of which its server time (Server-Timing)'].push(...consoleAlone.serverSamples);
    series['its key list (NATS)'].push(...gatewayKeyList.samples);
    const median = (samples: number[]) => percentile(samples, 0.5).toFixed(1);
    console.log(
      `round ${round}: medians through the gateway ${median(viaGateway.samples)} ms (console server time ${median(viaGateway.serverSamples)} ms), console alone ${median(consoleAlone.samples)} ms (server time ${median(consoleAlone.serverSamples)} ms), key list ${median(gatewayKeyList.samples)} ms`,
    );
  }
  console.log(
    `${page}, ${keyCount} keys, ${auditRecords.toLocaleString('en')} audit records, ${rounds} rounds of ${runs} renders each (${Math.round(bytes / 1024)} KiB of HTML):`,
  );
  for (const [label, samples] of Object.entries(series)) {
    console.log(
      `  ${label.padEnd(42)}: median ${percentile(samples, 0.5).toFixed(1)} ms, p95 ${percentile(samples, 0.95).toFixed(1)} ms   (target: well under 100 ms)`,
    );
  }
} finally {
  await platform.close();
}
