import pg from 'pg';
import { withDeadline } from './deadline.js';
import type { Logger } from './logger.js';
import type { BackgroundWork } from './workers.js';

/**
 * Every interval job of the platform (sweeps, retention, cleanup, maintenance) runs through `everyInterval`:
 * a pass, then `everyMs` of rest, then the next pass, so passes of one job never overlap; `close()` stops
 * the schedule and resolves once a running pass has finished. A failing pass is logged and the next one runs.
 *
 * `scope: 'cluster'` runs the job on one replica at a time: the replica holding a Postgres session advisory
 * lock named after the job (`pg_try_advisory_lock`) on a connection of its own. Each replica tries to take
 * the lock before each of its passes; the holder keeps it while it lives, so it alone runs the job, every
 * interval. Chosen over the other model the platform had (a BullMQ job scheduler in Redis, with every
 * replica re-creating it in case Redis lost it) and over a Redis lock with an expiry because:
 * - the lock lasts exactly as long as its holder's connection: no expiry to guess against a pass's length
 *   (a long pass never lets a second replica in) and no schedule to lose with Redis's data; a replica that
 *   dies drops its connection, and the lock, and another replica takes over at its next interval;
 * - every deployable has Postgres (mcp has no Redis), and every interval job works on Postgres rows, so the
 *   lock is unavailable only when the job could not run anyway.
 * Advisory locks are per database, and the platform's services share one: `name` is prefixed by the caller's
 * service (`webhooks.maintenance`). A pass whose replica loses its lock connection mid-pass may, for that
 * pass, run beside another replica's: every job is idempotent, so that costs work, never correctness.
 *
 * `scope: 'replica'` runs the job on every replica that runs it (work that belongs to the process).
 */
export type IntervalJobSettings = {
  /** The job's name, unique across the database: `<service>.<job>`. */
  name: string;
  everyMs: number;
  /** One pass; its rejection is logged. */
  run: () => Promise<unknown>;
  logger: Logger;
  /** Whether the first pass runs at once (the default: after `everyMs`). */
  runAtStart?: boolean;
} & ({ scope: 'replica' } | { scope: 'cluster'; databaseUrl: string });

/** An interval job: background work (see `startWorkers`) whose `close()` waits for a running pass. */
export interface IntervalJob extends BackgroundWork {
  close(): Promise<void>;
}

/** The first key of the two-key advisory lock form: interval jobs, apart from any other advisory lock. */
const lockNamespace = 7_411_530;

/** Leadership of a cluster-wide job: a session advisory lock on a dedicated connection. */
class AdvisoryLeadership {
  private client: pg.Client | undefined;
  private held = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** Whether this replica holds the job's lock now: takes it if free; checks its connection if held. */
  async lead(): Promise<boolean> {
    try {
      const client = await this.connection();
      const { rows } = this.held
        ? await client.query<{ leader: boolean }>('SELECT true AS leader')
        : await client.query<{ leader: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS leader', [lockNamespace, this.name]);
      this.held = rows[0]?.leader === true;
      return this.held;
    } catch (error) {
      // The connection (and with it the lock, if held) is gone: another replica may lead from now on.
      this.logger.warn({ err: error, job: this.name }, 'interval job lock not available; pass skipped');
      await this.drop();
      return false;
    }
  }

  /** Lets another replica lead: closing the session releases its advisory lock. */
  release(): Promise<void> {
    return this.drop();
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: `interval:${this.name}`,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      // A connection that stopped answering must not hold the pass (and a shutdown waiting for it) forever.
      query_timeout: 10_000,
    });
    client.on('error', () => {
      if (this.client === client) void this.drop();
    });
    this.client = client;
    try {
      await client.connect();
    } catch (error) {
      await this.drop();
      throw error;
    }
    return client;
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.held = false;
    if (!client) return;
    // A server that stopped answering never acknowledges the goodbye: a shutdown waits for it 2 s at most, then
    // drops the socket, which would otherwise keep the process alive.
    await withDeadline(client.end(), 2_000, 'lock connection not closed').catch(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    });
  }
}

/** Starts an interval job; see `IntervalJobSettings`. */
export function everyInterval(settings: IntervalJobSettings): IntervalJob {
  const { name, everyMs, run, logger } = settings;
  const leadership = settings.scope === 'cluster' ? new AdvisoryLeadership(settings.databaseUrl, name, logger) : undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();

  const runPass = async () => {
    if (stopped) return;
    if (leadership && !(await leadership.lead())) return;
    if (stopped) return;
    try {
      await run();
    } catch (error) {
      logger.warn({ err: error, job: name }, 'interval job failed; the next pass retries');
    }
  };

  // The next pass is scheduled once this one has finished: passes never overlap, however long one takes.
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      pass = runPass().finally(() => {
        if (!stopped) schedule(everyMs);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(settings.runAtStart ? 0 : everyMs);

  return {
    async close() {
      stopped = true;
      clearTimeout(timer);
      await pass;
      await leadership?.release();
    },
  };
}
