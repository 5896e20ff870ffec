// The stack as the chaos and scale runs start it: the compiled deployables (dist/, NODE_ENV=production, every
// secret set) against backing servers the caller started, with fakes of the outside services and a webhook
// receiver; an organization, a key and a webhook endpoint made with the operator CLI; and the accounting of
// what a phase of load lost or duplicated (audit records, events, webhook deliveries).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { type BenchProcess, buildWorkspaces, freePort, startProcess, stopAll } from '../../gateway/bench/lib/processes.js';
import { startMailServer } from '../../services/console/test/support/smtp.js';
import type { Sample } from './load.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The services, each with its compiled entry point; the gateway is started `gateways` times in front of them. */
const services = [
  ['telephony', 'services/telephony/dist/main.js'],
  ['leads', 'services/leads/dist/main.js'],
  ['recall', 'services/recall/dist/main.js'],
  ['mcp', 'services/mcp/dist/main.js'],
  ['webhooks', 'services/webhooks/dist/main.js'],
] as const;

/** `npm run build` of what the stack runs. */
export function buildStack(): void {
  buildWorkspaces(['proto', 'packages/kit', 'gateway', ...services.map(([name]) => `services/${name}`)]);
}

export interface StackOptions {
  /** The run's folder: each process logs to `<name>.log` there. */
  dir: string;
  /** DATABASE_URL, REDIS_URL, NATS_URL and whatever else the backing servers need (REDIS_MODE, JETSTREAM_REPLICAS). */
  backing: { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string } & Record<string, string>;
  /** Variables of the run's own that every process gets on top of the defaults here. */
  settings?: Record<string, string>;
  gateways: number;
  /** Processes of each service. Gateway replica i sends to replica i of each service (modulo their count), as
   * a Kubernetes Service would spread them; NATS queue groups, consumers and queues are shared by all. */
  serviceReplicas: number;
  /** The key's monthly quota. */
  quota: number;
  /** The sum of the org's monthly quota counters in Redis, for the accounting. */
  quotaCounted: (orgId: string) => number | Promise<number>;
}

interface Deployable {
  name: string;
  entry: string;
  port: number;
  env: Record<string, string>;
  process?: BenchProcess;
  /** Killed on purpose: not a crash. */
  killing?: boolean;
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

export async function startStack(options: StackOptions) {
  const { dir } = options;
  const deployables = new Map<string, Deployable>();
  let env: Record<string, string> = {};
  let stopping = false;
  /** Processes that exited on their own, as an orchestrator would see them; each is started again, as one would. */
  const crashes: string[] = [];

  async function start(deployable: Deployable): Promise<void> {
    deployable.process = await startProcess(deployable.name, deployable.entry, { ...env, ...deployable.env }, '/readyz', {
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
    const deployable = deployables.get(name);
    if (!deployable) throw new Error(`no deployable ${name}`);
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

  for (const entry of ['gateway/dist/main.js', 'gateway/dist/cli/admin.js']) {
    if (!existsSync(join(root, entry))) throw new Error(`${entry} is missing: run npm run build (or drop --skip-build)`);
  }

  // The outside services the deployables call: model providers, Telegram, Slack, and the webhook receiver.
  const telegramToken = `123456:${randomBytes(12).toString('hex')}`;
  const slackToken = `xoxb-${randomBytes(12).toString('hex')}`;
  const [openAi, anthropic, telegram, slack] = await Promise.all([
    freePort().then((port) => startFakeOpenAi(unawareAnswers(), port)),
    freePort().then((port) => startFakeAnthropic(unawareAnswers(), port)),
    freePort().then((port) => startFakeTelegram(telegramToken, port)),
    freePort().then((port) => startFakeSlack(slackToken, port)),
  ]);
  // An SMTP server (the console tests' own, a real one in this process) for the approval e-mails: production
  // needs SMTP_URL, and without it the mcp service does not start.
  const mail = await startMailServer();
  /** Every request the receiver got, across its restarts. */
  const received: ReceivedRequest[] = [];
  const receiverPort = await freePort();
  let receiver: Receiver = await startReceiver(() => 200, receiverPort);

  const replicaName = (name: string, index: number, count: number) => (count === 1 ? name : `${name}-${index + 1}`);
  for (const [name, entry] of services) {
    for (let index = 0; index < options.serviceReplicas; index++) {
      const replica = replicaName(name, index, options.serviceReplicas);
      deployables.set(replica, { name: replica, entry, port: await freePort(), env: {} });
    }
  }
  for (let index = 0; index < options.gateways; index++) {
    const upstreams = Object.fromEntries(
      services.map(([name]) => {
        const target = deployables.get(replicaName(name, index % options.serviceReplicas, options.serviceReplicas));
        return [`${name.toUpperCase()}_URL`, `http://127.0.0.1:${target?.port}`];
      }),
    );
    const name = `gateway-${index + 1}`;
    deployables.set(name, { name, entry: 'gateway/dist/main.js', port: await freePort(), env: upstreams });
  }

  // One environment for every process: each reads what it needs. Every secret is set, as production needs.
  env = {
    NODE_ENV: 'production',
    ...options.backing,
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
    SMTP_URL: mail.url,
    TELEPHONY_CARRIER: 'sandbox',
    // The receiver is a plain-HTTP server on loopback.
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOKS_REQUIRE_HTTPS: 'false',
    // Retries every 10 s at most (production waits 5 s, then 5 min, …), so that a receiver back after 60 s
    // gets its deliveries within this run.
    WEBHOOK_RETRY_SCHEDULE_MS: '1000,2000,5000,10000,10000,10000,10000,10000,10000,10000,10000',
    // Likewise the delivery held by a killed worker (picked up after one to two lock periods) and the check
    // for pending deliveries without a job: 10 s, not 30 s and 60 s, so that what comes late comes within
    // the drain window and only what is lost counts as missing.
    WEBHOOK_WORKER_LOCK_MS: '10000',
    WEBHOOK_MAINTENANCE_INTERVAL_MS: '10000',
    ...options.settings,
  };
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { cwd: root, env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, encoding: 'utf8' });

  const url = (name: string) => `http://127.0.0.1:${deployables.get(name)?.port}`;
  const gateways = Array.from({ length: options.gateways }, (_, index) => url(`gateway-${index + 1}`));

  const migrate = () => run('npm', ['run', '--silent', 'db:migrate']);
  const startAll = () => Promise.all([...deployables.values()].map(start));

  // The organization and keys, with the operator CLI as compiled.
  const admin = (...args: string[]) => JSON.parse(run(process.execPath, ['gateway/dist/cli/admin.js', ...args]));
  const createKey = (orgId: string, quota: number) =>
    (admin('key', 'create', '--org', orgId, '--scope', 'read-write', '--quota', String(quota)) as { key: string }).key;

  let org = { id: '' };
  let key = '';
  let bus: Bus | undefined;
  /** Events as JetStream holds them, by the id of the row they are about: the ids of the events seen. */
  const eventsById = new Map<string, Set<string>>();

  /**
   * Migrates, starts every process, makes the organization, its key and a webhook endpoint for the events the
   * load's writes cause (lead.created, dnc.added), and starts counting those events.
   */
  async function boot(orgName: string): Promise<void> {
    migrate();
    await startAll();
    org = admin('org', 'create', '--name', orgName, '--plan', 'enterprise') as { id: string };
    key = createKey(org.id, options.quota);
    const endpoint = await fetch(`${gateways[0]}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, event_types: ['lead.created', 'dnc.added'] }),
    });
    if (endpoint.status !== 201) throw new Error(`creating the webhook endpoint answered ${endpoint.status}: ${await endpoint.text()}`);
    bus = await Bus.connect({
      url: options.backing.NATS_URL,
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
  }

  const db = new pg.Pool({ connectionString: options.backing.DATABASE_URL, max: 2 });
  // An idle connection ended by a Postgres fault is just dropped; the queries below retry.
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

  /** What one phase lost or duplicated, counted from the database, the events and the receiver. */
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
      quota: { counted: await options.quotaCounted(org.id), audited: auditedThisRun?.n ?? 0 },
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

  /**
   * Lets audit records, events and deliveries drain: until nothing is missing, or nothing changed for 25 s
   * (past the retry schedule's longest wait, two worker locks and the maintenance interval), or 90 s.
   */
  async function drain(tag: string, samples: Sample[]): Promise<{ accounting: Accounting; waitedMs: number }> {
    const drainStart = Date.now();
    let accounting = await account(tag, samples);
    let lastChange = Date.now();
    while (!complete(accounting) && Date.now() - lastChange < 25_000 && Date.now() - drainStart < 90_000) {
      await sleep(1_000);
      const next = await account(tag, samples);
      if (JSON.stringify(next) !== JSON.stringify(accounting)) lastChange = Date.now();
      accounting = next;
    }
    return { accounting, waitedMs: Date.now() - drainStart };
  }

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

  return {
    gateways,
    names: () => [...deployables.keys()],
    get org() {
      return org;
    },
    get key() {
      return key;
    },
    get receiverUrl() {
      return receiver.url;
    },
    crashes,
    boot,
    createKey,
    /** SIGKILLs the process and starts it again. */
    restartProcess: async (name: string) => start(await sigkill(name)),
    sigkill,
    account,
    drain,
    errorLines,
    /** Stops the receiver, keeping what it got; resolves once it no longer listens. */
    async stopReceiver() {
      received.push(...receiver.requests);
      await receiver.close();
    },
    async startReceiver() {
      receiver = await startReceiver(() => 200, receiverPort);
    },
    /** The deployables stop cleanly (within 20 s); the fakes and connections go with this process. */
    async stop() {
      stopping = true;
      await Promise.race([stopAll(), sleep(20_000)]);
      await bus?.drain().catch(() => {});
      await db.end().catch(() => {});
    },
  };
}

export type Accounting = Awaited<ReturnType<Stack['account']>>;
