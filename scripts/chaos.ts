// `npm run chaos [-- fault…]`: the stack from the compiled JavaScript (`npm run build` first) with its own
// Postgres, Redis and NATS, two gateway replicas and one process of each service, all NODE_ENV=production
// with every secret set; then, for each fault under steady load across both replicas, what the clients saw
// (requests, statuses, slowest answer, recovery) and what was lost or duplicated (audit records, events,
// webhook deliveries). Figures only, nothing asserts: not part of CI or `npm test`.
//
//   npm run chaos                       every fault, in order
//   npm run chaos -- nats-60 redis      those faults only
//   --long-seconds=20                   shortens the 60-second outages (trials only; the default is the issue's)
//   --skip-build                        use dist/ as it is
//   --keep                              keep the temporary folder (servers' logs) and print where it is
//   CHAOS_RATE=30                       requests per second; BENCH_PORTS=17500-17799 takes every port from that range
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Bus, createLogger } from '@voice/kit';
import {
  type ReceivedRequest,
  type Receiver,
  startFakeAnthropic,
  startFakeOpenAi,
  startFakeSlack,
  startFakeTelegram,
  startReceiver,
  unawareAnswers,
} from '@voice/kit/testing';
import pg from 'pg';
import { type BenchProcess, buildWorkspaces, freePort, startProcess, stopAll } from '../gateway/bench/lib/processes.js';
import { Load, operations, type Sample, summarise } from './chaos/load.js';
import { NatsServer, PostgresServer, RedisServer } from './chaos/servers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: flags, positionals: wanted } = parseArgs({
  allowPositionals: true,
  options: { 'long-seconds': { type: 'string' }, 'skip-build': { type: 'boolean' }, keep: { type: 'boolean' } },
});
const longMs = Number(flags['long-seconds'] ?? 60) * 1000;
const ratePerSecond = Number(process.env.CHAOS_RATE ?? 30);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---- backing servers, in a folder of their own ----------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'voice-chaos-'));
const postgres = new PostgresServer(await freePort(), dir);
const redis = new RedisServer(await freePort(), dir);
const nats = new NatsServer(await freePort(), dir);
// Whatever happens (an error, Ctrl-C), nothing is left running or on disk. The deployables are SIGKILLed by
// the bench helper's own exit handler.
process.once('exit', () => {
  redis.killNow();
  nats.killNow();
  postgres.stopNow();
  if (!flags.keep) rmSync(dir, { recursive: true, force: true });
});
// `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx), and a second
// signal without a handler would end it before the exit handler has run.
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

// ---- the stack -----------------------------------------------------------------------------------------
interface Deployable {
  name: string;
  entry: string;
  port: number;
  process?: BenchProcess;
  /** Killed on purpose: not a crash. */
  killing?: boolean;
}
const deployables = new Map<string, Deployable>();
let env: Record<string, string> = {};
let stopping = false;
/** Processes that exited on their own, as an orchestrator would see them; each is started again, as one would. */
const crashes: string[] = [];

async function start(deployable: Deployable): Promise<void> {
  deployable.process = await startProcess(deployable.name, deployable.entry, env, '/readyz', {
    port: deployable.port,
    logFile: join(dir, `${deployable.name}.log`),
  });
  deployable.process.child.once('exit', (code, signal) => {
    if (stopping || deployable.killing) return;
    crashes.push(`${deployable.name} (${signal ?? `exit ${code}`})`);
    void restart(deployable);
  });
}

async function restart(deployable: Deployable): Promise<void> {
  while (!stopping) {
    await sleep(1_000);
    try {
      await start(deployable);
      return;
    } catch {
      // not ready yet (its dependencies may still be away): again in a second
    }
  }
}

async function sigkill(name: string): Promise<Deployable> {
  const deployable = deployables.get(name) as Deployable;
  const child = deployable.process?.child;
  if (child && child.exitCode === null) {
    deployable.killing = true;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    deployable.killing = false;
  }
  return deployable;
}

/** Every request the receiver got, across its restarts. */
const received: ReceivedRequest[] = [];
let receiver: Receiver;
let receiverPort = 0;

const startedAt = Date.now();
let builtAt = startedAt;
try {
  if (!flags['skip-build']) {
    say('building (npm run build) …');
    buildWorkspaces([
      'proto',
      'packages/kit',
      'gateway',
      'services/telephony',
      'services/leads',
      'services/recall',
      'services/mcp',
      'services/webhooks',
    ]);
  }
  builtAt = Date.now();
  for (const entry of ['gateway/dist/main.js', 'gateway/dist/cli/admin.js']) {
    if (!existsSync(join(root, entry))) throw new Error(`${entry} is missing: run npm run build (or drop --skip-build)`);
  }

  say(`starting Postgres :${postgres.port}, Redis :${redis.port}, NATS :${nats.port} in ${dir}`);
  await postgres.init();
  await redis.start();
  await nats.start();

  // The outside services the deployables call: model providers, Telegram, Slack, and the webhook receiver.
  const telegramToken = `123456:${randomBytes(12).toString('hex')}`;
  const slackToken = `xoxb-${randomBytes(12).toString('hex')}`;
  const [openAi, anthropic, telegram, slack] = await Promise.all([
    freePort().then((port) => startFakeOpenAi(unawareAnswers(), port)),
    freePort().then((port) => startFakeAnthropic(unawareAnswers(), port)),
    freePort().then((port) => startFakeTelegram(telegramToken, port)),
    freePort().then((port) => startFakeSlack(slackToken, port)),
  ]);
  receiverPort = await freePort();
  receiver = await startReceiver(() => 200, receiverPort);

  for (const [name, entry] of [
    ['telephony', 'services/telephony/dist/main.js'],
    ['leads', 'services/leads/dist/main.js'],
    ['recall', 'services/recall/dist/main.js'],
    ['mcp', 'services/mcp/dist/main.js'],
    ['webhooks', 'services/webhooks/dist/main.js'],
    ['gateway-1', 'gateway/dist/main.js'],
    ['gateway-2', 'gateway/dist/main.js'],
  ] as const) {
    deployables.set(name, { name, entry, port: await freePort() });
  }
  const url = (name: string) => `http://127.0.0.1:${deployables.get(name)?.port}`;
  // One environment for every process: each reads what it needs. Every secret is set, as production needs.
  env = {
    NODE_ENV: 'production',
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    INTERNAL_SIGNING_SECRET: randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OPENAI_API_KEY: `sk-${randomBytes(16).toString('hex')}`,
    OPENAI_BASE_URL: openAi.baseUrl,
    ANTHROPIC_API_KEY: `sk-ant-${randomBytes(16).toString('hex')}`,
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    TELEGRAM_BOT_TOKEN: telegramToken,
    TELEGRAM_WEBHOOK_SECRET: randomBytes(16).toString('hex'),
    TELEGRAM_API_BASE_URL: telegram.baseUrl,
    SLACK_BOT_TOKEN: slackToken,
    SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
    SLACK_API_BASE_URL: slack.apiBaseUrl,
    TELEPHONY_CARRIER: 'sandbox',
    // The receiver is a plain-HTTP server on loopback.
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOKS_REQUIRE_HTTPS: 'false',
    // Retries every 10 s at most (production waits 5 s, then 5 min, …), so that a receiver back after 60 s
    // gets its deliveries within this run.
    WEBHOOK_RETRY_SCHEDULE_MS: '1000,2000,5000,10000,10000,10000,10000,10000,10000,10000,10000',
    // Likewise the delivery held by a killed worker (picked up after one to two lock periods) and the check
    // for pending deliveries without a job: 10 s, not 30 s and 60 s, so that what comes late comes within
    // the drain window below and only what is lost counts as missing.
    WEBHOOK_WORKER_LOCK_MS: '10000',
    WEBHOOK_MAINTENANCE_INTERVAL_MS: '10000',
    TELEPHONY_URL: url('telephony'),
    LEADS_URL: url('leads'),
    RECALL_URL: url('recall'),
    MCP_URL: url('mcp'),
    WEBHOOKS_URL: url('webhooks'),
  };
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { cwd: root, env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, encoding: 'utf8' });

  say('migrating (npm run db:migrate) …');
  run('npm', ['run', '--silent', 'db:migrate']);
  say('starting telephony, leads, recall, mcp, webhooks and two gateways (dist/, NODE_ENV=production) …');
  await Promise.all([...deployables.values()].map(start));
  const gateways = [url('gateway-1'), url('gateway-2')];

  // The organization and key, with the operator CLI as compiled.
  const admin = (...args: string[]) => JSON.parse(run(process.execPath, ['gateway/dist/cli/admin.js', ...args]));
  const org = admin('org', 'create', '--name', 'Chaos', '--plan', 'enterprise') as { id: string };
  const created = admin('key', 'create', '--org', org.id, '--scope', 'read-write', '--quota', '2000000000') as { key: string };
  const key = created.key;
  const endpoint = await fetch(`${gateways[0]}/api/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, event_types: ['lead.created', 'dnc.added'] }),
  });
  if (endpoint.status !== 201) throw new Error(`creating the webhook endpoint answered ${endpoint.status}: ${await endpoint.text()}`);
  say(`organization ${org.id}, webhook endpoint at ${receiver.url}`);

  // Events as JetStream holds them, read by a durable consumer of this script's own.
  const eventsById = new Map<string, Set<string>>();
  const bus = await Bus.connect({
    url: nats.url,
    name: 'chaos',
    namespace: '',
    logger: createLogger('chaos', 'silent'),
    secret: env.INTERNAL_SIGNING_SECRET as string,
  });
  await bus.consume({ durable: 'chaos-events', types: ['lead.created', 'dnc.added'] }, async (event) => {
    const id = String(event.data.id);
    const ids = eventsById.get(id) ?? new Set();
    ids.add(event.id);
    eventsById.set(id, ids);
  });

  const db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  // An idle connection ended by the Postgres fault is just dropped; the queries below retry.
  db.on('error', () => {});
  const query = async <R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await db.query<R>(text, params)).rows;
      } catch (error) {
        if (attempt >= 20) throw error;
        await sleep(500);
      }
    }
  };
  let phoneSequence = 0;
  const nextPhone = () => `+1${2_000_000_000 + phoneSequence++}`;

  /** What one fault lost or duplicated, counted from the database, the events and the receiver. */
  async function account(tag: string, samples: Sample[]) {
    const requestIds = samples.filter((sample) => sample.authenticated && sample.requestId).map((sample) => sample.requestId as string);
    const audited = await query<{ request_id: string; n: number }>(
      'SELECT request_id, count(*)::int AS n FROM gateway.audit_records WHERE request_id = ANY($1) GROUP BY request_id',
      [requestIds],
    );
    const leads = await query<{ id: string }>('SELECT id FROM leads.leads WHERE name LIKE $1', [`${tag}-%`]);
    const dnc = await query<{ id: string }>('SELECT id FROM telephony.dnc_entries WHERE reason = $1', [tag]);
    const committed = [...leads, ...dnc].map((row) => row.id);
    const eventIds = committed.flatMap((id) => [...(eventsById.get(id) ?? [])]);
    const receipts = new Map<string, number>();
    for (const request of received.concat(receiver.requests)) {
      const id = String(request.headers['webhook-id']);
      receipts.set(id, (receipts.get(id) ?? 0) + 1);
    }
    // The key's monthly quota counter against the durable record of what it counted: after Redis lost its
    // data the gateway rebuilds the counter from the audit records, so the two stay equal.
    const [auditedThisRun] = await query<{ n: number }>('SELECT count(*)::int AS n FROM gateway.audit_records WHERE org_id = $1', [org.id]);
    return {
      quota: { counted: redis.sumOf(`*q:{${org.id}}:m:*`), audited: auditedThisRun?.n ?? 0 },
      audit: {
        expected: requestIds.length,
        recorded: audited.length,
        missing: requestIds.length - audited.length,
        duplicated: audited.reduce((sum, row) => sum + row.n - 1, 0),
      },
      events: {
        committed: committed.length,
        answered: samples.filter((sample) => sample.method === 'POST' && sample.status === 201).length,
        missing: committed.filter((id) => !eventsById.has(id)).length,
        duplicated: committed.reduce((sum, id) => sum + Math.max(0, (eventsById.get(id)?.size ?? 0) - 1), 0),
      },
      deliveries: {
        events: eventIds.length,
        missing: eventIds.filter((id) => !receipts.has(id)).length,
        duplicated: eventIds.reduce((sum, id) => sum + Math.max(0, (receipts.get(id) ?? 0) - 1), 0),
      },
    };
  }
  type Accounting = Awaited<ReturnType<typeof account>>;
  const complete = (a: Accounting) => a.audit.missing === 0 && a.events.missing === 0 && a.deliveries.missing === 0;

  /** Error and fatal log lines of every deployable so far (pino levels 50 and 60). */
  const errorLines = () =>
    [...deployables.keys()].reduce((sum, name) => {
      const file = join(dir, `${name}.log`);
      if (!existsSync(file)) return sum;
      return (
        sum +
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /"level":(50|60)/.test(line)).length
      );
    }, 0);

  interface Fault {
    name: string;
    title: string;
    /** Done before the load starts (not part of the fault). */
    prepare?: () => Promise<void>;
    /** Injects the fault and ends it; resolves at the fault's end (the component back and answering). */
    inject: () => Promise<void>;
  }
  const faults: Fault[] = [
    ...[false, true].map((aof) => ({
      name: aof ? 'redis-aof' : 'redis',
      title: `Redis SIGKILLed and restarted ${aof ? 'with AOF (appendfsync everysec)' : 'without AOF'}, down 3 s`,
      prepare: () => redis.setAof(aof),
      inject: async () => {
        await redis.kill();
        await sleep(3_000);
        await redis.start();
      },
    })),
    ...[5_000, longMs].map((ms, index) => ({
      name: index === 0 ? 'nats-5' : 'nats-60',
      title: `NATS SIGKILLed for ${seconds(ms)}`,
      inject: async () => {
        await nats.kill();
        await sleep(ms);
        await nats.start();
      },
    })),
    {
      name: 'postgres-10',
      title: 'Postgres stopped (fast shutdown) for 10 s',
      inject: async () => {
        await postgres.stop();
        await sleep(10_000);
        await postgres.start();
      },
    },
    {
      name: 'service-kill',
      title: 'leads service SIGKILLed and restarted',
      inject: async () => start(await sigkill('leads')),
    },
    {
      name: 'worker-kill',
      title: 'webhooks service (BullMQ delivery worker) SIGKILLed and restarted',
      inject: async () => start(await sigkill('webhooks')),
    },
    {
      name: 'receiver-60',
      title: `webhook receiver down for ${seconds(longMs)}`,
      inject: async () => {
        received.push(...receiver.requests);
        await receiver.close();
        await sleep(longMs);
        receiver = await startReceiver(() => 200, receiverPort);
      },
    },
  ];
  const unknown = wanted.filter((name) => !faults.some((fault) => fault.name === name));
  if (unknown.length > 0) throw new Error(`unknown fault ${unknown.join(', ')}; faults: ${faults.map((fault) => fault.name).join(', ')}`);
  const selected = wanted.length === 0 ? faults : faults.filter((fault) => wanted.includes(fault.name));

  const loadFor = (tag: string) =>
    new Load(gateways, key, operations(tag, nextPhone), { ratePerSecond, maxInFlight: 200, timeoutMs: 30_000 });
  say(`load: ${ratePerSecond} requests/s over both gateways (calls list 4, leads list 2, lead create 3, DNC add 1 in 10)`);
  const warmUp = loadFor('chaos-warm-up');
  warmUp.start();
  await sleep(5_000);
  await warmUp.stop();

  const rows: string[] = [];
  for (const fault of selected) {
    const tag = `chaos-${fault.name}`;
    say(`\n## ${fault.name}: ${fault.title}`);
    await fault.prepare?.();
    const errorsBefore = errorLines();
    const crashesBefore = crashes.length;
    const load = loadFor(tag);
    load.start();
    await sleep(5_000);
    const faultStart = Date.now();
    await fault.inject();
    const faultEnd = Date.now();
    // Load goes on until a request sent after the fault's end succeeds (at most 60 s), then 5 s more.
    const recoveryDeadline = faultEnd + 60_000;
    while (Date.now() < recoveryDeadline && summarise(load.samples, faultEnd).recoveryMs === undefined) await sleep(200);
    await sleep(5_000);
    await load.stop();
    const loadMs = Date.now() - faultStart + 5_000;

    // Lets audit records, events and deliveries drain: until nothing is missing, or nothing changed for
    // 25 s (past the retry schedule's longest wait, two worker locks and the maintenance interval), or 90 s.
    const drainStart = Date.now();
    let accounting = await account(tag, load.samples);
    let lastChange = Date.now();
    while (!complete(accounting) && Date.now() - lastChange < 25_000 && Date.now() - drainStart < 90_000) {
      await sleep(1_000);
      const next = await account(tag, load.samples);
      if (JSON.stringify(next) !== JSON.stringify(accounting)) lastChange = Date.now();
      accounting = next;
    }
    const drained = Date.now() - drainStart;

    const figures = summarise(load.samples, faultEnd);
    const histogram = figures.histogram.map(([status, count]) => `${status}×${count}`).join(' ');
    const slowest = figures.slowest ? `${figures.slowest.endedAt - figures.slowest.startedAt} ms (${figures.slowest.op})` : 'n/a';
    const recovery = figures.recoveryMs === undefined ? 'none within 60 s' : `${figures.recoveryMs} ms`;
    const lastFailure = figures.lastFailureMs === undefined ? 'none' : `${figures.lastFailureMs} ms`;
    const { quota, audit, events, deliveries } = accounting;
    const errors = errorLines() - errorsBefore;
    const crashed = crashes.slice(crashesBefore);
    say(`fault lasted ${seconds(faultEnd - faultStart)}, load ${seconds(loadMs)} (5 s before it, 5 s past the first success after it)`);
    say(`requests sent ${figures.sent}${load.skipped ? ` (${load.skipped} not sent: 200 already open)` : ''}; statuses ${histogram}`);
    say(
      `failures by operation: ${figures.failures.length === 0 ? 'none' : figures.failures.map(([what, count]) => `${what}×${count}`).join(', ')}`,
    );
    say(`slowest answer ${slowest}`);
    say(`recovery: first success ${recovery} after the fault's end; last failure ${lastFailure} after it`);
    say(`500s: ${figures.status500}; 503s: ${figures.status503}, ${figures.status503WithoutRetryAfter} of them without Retry-After`);
    say(
      `audit records: ${audit.recorded} of ${audit.expected} authenticated responses (missing ${audit.missing}, duplicated ${audit.duplicated})`,
    );
    say(
      `events: ${events.committed} committed writes (${events.answered} answered 201), missing ${events.missing}, duplicated ${events.duplicated}`,
    );
    say(`deliveries: ${deliveries.events} events, missing ${deliveries.missing}, duplicated ${deliveries.duplicated}`);
    say(`quota: the key's monthly counter reads ${quota.counted}; ${quota.audited} requests audited since the run began`);
    say(`processes that exited on their own: ${crashed.length === 0 ? 'none' : crashed.join(', ')}`);
    say(`error log lines ${errors}; waited ${seconds(drained)} for things to drain`);
    rows.push(
      `| ${fault.name} | ${figures.sent} | ${histogram} | ${slowest} | ${recovery} | ${figures.status500} | ${figures.status503WithoutRetryAfter} of ${figures.status503} | ${audit.missing}/${audit.expected} (dup ${audit.duplicated}) | ${events.missing}/${events.committed} (dup ${events.duplicated}) | ${deliveries.missing}/${deliveries.events} (dup ${deliveries.duplicated}) | ${quota.counted} / ${quota.audited} | ${crashed.join(', ') || 'none'} |`,
    );
  }

  say(`\n${ratePerSecond} requests/s over two gateway replicas; lost: missing/expected (dup: received more than once)\n`);
  say(
    '| fault | requests | statuses | slowest | recovery | 500s | 503 without Retry-After | audit records lost | events lost | deliveries lost | quota counted / audited | exited on their own |',
  );
  say('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) say(row);
  say(`\ntook ${seconds(Date.now() - startedAt)}, of which the build ${seconds(builtAt - startedAt)}`);

  // The deployables stop cleanly; the exit handler removes the rest (the fakes and connections go with this process).
  stopping = true;
  await Promise.race([stopAll(), sleep(20_000)]);
  if (flags.keep) say(`\nlogs kept in ${dir}`);
  process.exit(0);
} catch (error) {
  process.stderr.write(`chaos: ${(error as Error).stack ?? error}\n`);
  if (flags.keep) process.stderr.write(`logs kept in ${dir}\n`);
  process.exit(1);
}
