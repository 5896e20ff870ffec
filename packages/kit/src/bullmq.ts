import { type Job, type Processor, Queue, Worker, type WorkerOptions } from 'bullmq';
import { withDeadline } from './deadline.js';
import { everyInterval } from './interval.js';
import type { Logger } from './logger.js';
import { bullmqOptions, type RedisEnv } from './redis.js';
import type { BackgroundWork } from './workers.js';

/**
 * Every BullMQ worker of the platform is started here (telephony's dialer, leads' sequence steps, webhooks'
 * deliveries), on the connection `bullmqOptions` gives, logged alike and watched.
 *
 * Why watched: BullMQ 6.7 (ioredis 6.0) can lose a worker for good when a Redis server it blocks on dies. On a
 * Redis Cluster, the worker's blocking connection (BullMQ's duplicate of the process's Cluster client) had a
 * BZPOPMIN on the killed primary; BullMQ's own watchdog gives up on it after `drainDelay` + 1 s and resets that
 * connection, and about one failover in four that reset never finishes: the worker's main loop stays parked on
 * it, fetches nothing more, and its `close()` (which first disconnects the same connection and waits for it)
 * never returns either (upstream: taskforcesh/bullmq#4138, open; #4479 and #4585 are the same kind on one
 * server). No connection option makes BullMQ leave that state, so each worker is supervised instead:
 *
 * - every `intervalMs` the supervisor asks Redis (through the process's non-blocking connection) whether the
 *   queue has jobs ready to run: waiting, prioritized, or delayed and due;
 * - a worker that has a free slot, is neither paused nor closing, and has started no job while such jobs were
 *   ready for `stuckAfterMs` is not fetching: it is closed with force (its blocking connection disconnected
 *   underneath if even that hangs) and replaced by a new Worker, whose blocking connection is a new one; each
 *   replacement is logged (a healthy worker takes a ready job within milliseconds, so a replacement means
 *   the worker was wedged, or at worst that a job started a few seconds late);
 * - `close()` (shutdown) lets running jobs finish for at most `closeTimeoutMs`, then disconnects the blocking
 *   connection and returns, so a process always stops.
 *
 * A job the replaced worker was running keeps its lock no more: BullMQ's stalled-job check hands it to a
 * worker again, as after a crash, and every job of the platform is idempotent by its record's id.
 */
export interface BullmqWorkerSettings<D, R> {
  /** The queue's name. */
  queue: string;
  processor: Processor<D, R>;
  /** Where Redis is, and the process's key prefix: the worker's connection and prefix are `bullmqOptions(env)`. */
  env: RedisEnv & { REDIS_PREFIX: string };
  logger: Logger;
  /** BullMQ's worker options (concurrency, lock duration, backoff…), the connection and prefix aside. */
  options?: Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>;
  /**
   * How a failed attempt is logged: every one is (`BullMQ job failed`, with the queue, job id and attempts made),
   * with these fields of its job added, unless `expected` says the failure is the processor's way of asking
   * for a retry (webhooks' RetryLater). A worker's 'error' events are logged too.
   */
  failures?: { fields?: (job: Job<D, R>) => Record<string, unknown>; expected?: (error: Error) => boolean };
  /** How often the queue is checked (default 2 s). */
  intervalMs?: number;
  /** How long ready jobs may wait while the worker has a free slot and starts none (default 10 s). */
  stuckAfterMs?: number;
  /** How long `close()` waits for running jobs before it disconnects the worker underneath (default 30 s). */
  closeTimeoutMs?: number;
}

/** A supervised BullMQ worker: background work (see `startWorkers`) that closes within its bound. */
export interface BullmqWorker<D = unknown, R = unknown> extends BackgroundWork {
  /** The worker running now (another one after each replacement). */
  readonly worker: Worker<D, R>;
  /** How many times the worker was found wedged and replaced. */
  readonly replacements: number;
  close(): Promise<void>;
}

interface Incarnation<D, R> {
  worker: Worker<D, R>;
  /** Jobs started and not yet finished by this worker. */
  running: number;
  /** When this worker last started a job (or was created). */
  lastStartAt: number;
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** Whether the promise settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);
}

type RetiredClient = {
  disconnect(): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  options: { retryStrategy?: (times: number) => number | null | undefined };
};

/** BullMQ's wrapper of one connection (RedisConnection): its client, and whether the caller shares it. */
type BullmqConnection = { client: Promise<RetiredClient>; extraOptions?: { shared?: boolean } };

/**
 * The connections the worker owns, reached through BullMQ's Redis backend (its main and blocking
 * RedisConnection), without a caller's shared client (Redis Cluster mode passes one for every queue).
 */
async function ownedClientsOf(worker: Worker<unknown, unknown>): Promise<Array<{ client: RetiredClient; blocking: boolean }>> {
  const backend = (worker as unknown as { backend?: { connection?: BullmqConnection; blockingConnection?: BullmqConnection } }).backend;
  const owned: Array<{ client: RetiredClient; blocking: boolean }> = [];
  for (const [connection, blocking] of [
    [backend?.blockingConnection, true],
    [backend?.connection, false],
  ] as const) {
    if (!connection || connection.extraOptions?.shared) continue;
    try {
      owned.push({ client: await withDeadline(connection.client, 1_000, 'connection not available'), blocking });
    } catch {
      // Never connected: nothing to retire.
    }
  }
  return owned;
}

/**
 * Retires a closed (or abandoned) worker's connections for good: the blocking one is disconnected now if
 * `disconnect`; each is disconnected again whenever it comes back, and never retries a lost connection.
 * BullMQ connects an ended client again when it resets a blocking read it abandoned (`reconnect()` on an
 * `end` status), which a wedged reset does long after close; left to ioredis's retry strategy, such a
 * client retries forever once Redis is gone, and its retry timer alone keeps the process from exiting.
 */
async function retireConnections(worker: Worker<unknown, unknown>, disconnect: boolean): Promise<void> {
  for (const { client, blocking } of await ownedClientsOf(worker)) {
    client.options.retryStrategy = () => null;
    client.on('error', () => {});
    client.on('ready', () => client.disconnect());
    if (disconnect && blocking) client.disconnect();
  }
}

/** Starts a supervised BullMQ worker on `settings.queue`; see `BullmqWorkerSettings`. */
export function startBullmqWorker<D = unknown, R = unknown>(settings: BullmqWorkerSettings<D, R>): BullmqWorker<D, R> {
  const { queue: name, processor, env, logger } = settings;
  const intervalMs = settings.intervalMs ?? 2_000;
  const stuckAfterMs = settings.stuckAfterMs ?? 10_000;
  const closeTimeoutMs = settings.closeTimeoutMs ?? 30_000;
  const connection = bullmqOptions(env);

  const start = (): Incarnation<D, R> => {
    const worker = new Worker<D, R>(name, processor, { ...settings.options, ...connection });
    const incarnation: Incarnation<D, R> = { worker, running: 0, lastStartAt: Date.now() };
    worker.on('active', () => {
      incarnation.running++;
      incarnation.lastStartAt = Date.now();
    });
    const finished = () => {
      incarnation.running = Math.max(0, incarnation.running - 1);
    };
    worker.on('completed', finished);
    worker.on('failed', (job, error) => {
      if (job) finished();
      if (settings.failures?.expected?.(error)) return;
      const fields = job ? { job_id: job.id, attempts: job.attemptsMade, ...settings.failures?.fields?.(job) } : {};
      logger.warn({ err: error, queue: name, ...fields }, 'BullMQ job failed');
    });
    worker.on('error', (error) => logger.warn({ err: error, queue: name }, 'BullMQ worker error'));
    return incarnation;
  };

  /**
   * Closes a worker: gracefully (running jobs finish) or with force, within `timeoutMs`; past it, its blocking
   * connection is disconnected underneath, which is what a stuck close waits on, and the worker is left to go.
   */
  const closeWithin = async (worker: Worker<D, R>, force: boolean, timeoutMs: number): Promise<void> => {
    const closing = worker
      .close(force)
      .catch((error: unknown) => logger.warn({ err: error, queue: name }, 'BullMQ worker did not close cleanly'));
    const inTime = await settlesWithin(closing, timeoutMs);
    await retireConnections(worker as Worker<unknown, unknown>, !inTime);
    if (inTime) return;
    const closed = await settlesWithin(closing, 2_000);
    if (!closed) {
      // BullMQ stops its stalled-jobs timer and drops its other connection only once its close has finished,
      // which a left-behind worker's never does: do both here, so it keeps no timer or connection (and so no
      // process) alive.
      (worker as unknown as { stalledCheckStopper?: () => void }).stalledCheckStopper?.();
      worker.disconnect().catch(() => {});
    }
    logger.warn(
      { queue: name, timeout_ms: timeoutMs, closed },
      closed
        ? 'BullMQ worker did not close in time; closed once its blocking connection was disconnected'
        : 'BullMQ worker did not close in time, even with its blocking connection disconnected; left behind',
    );
  };

  let current = start();
  let replacements = 0;
  let closing = false;
  /** Since when the checks have seen jobs ready while the current worker had a free slot. */
  let readySince: number | undefined;
  let checkQueue: Queue | undefined;

  /** Whether the queue has jobs a worker should be running: waiting, prioritized, or delayed and due. */
  const jobsReady = async (): Promise<boolean> => {
    checkQueue ??= new Queue(name, connection);
    if (checkQueue.listenerCount('error') === 0) checkQueue.on('error', () => {});
    const counts = await checkQueue.getJobCounts('wait', 'prioritized');
    if ((counts.wait ?? 0) + (counts.prioritized ?? 0) > 0) return true;
    const [next] = await checkQueue.getDelayed(0, 0);
    return next !== undefined && next.timestamp + (next.delay ?? 0) <= Date.now();
  };

  const replace = async (waitedMs: number) => {
    const wedged = current;
    replacements++;
    logger.warn(
      { queue: name, replacement: replacements, waited_ms: waitedMs, running: wedged.running },
      'BullMQ worker stopped fetching while jobs were ready; closing it with force and starting a new one',
    );
    await closeWithin(wedged.worker, true, 5_000);
    readySince = undefined;
    if (!closing) current = start();
  };

  const check = async () => {
    const { worker, running, lastStartAt } = current;
    if (closing || worker.isPaused() || !worker.isRunning() || running >= worker.concurrency) {
      readySince = undefined;
      return;
    }
    let ready: boolean;
    try {
      ready = await withDeadline(jobsReady(), Math.max(intervalMs, 1_000), 'queue not checked in time');
    } catch {
      // Redis not answering (a failover in progress): no conclusion either way.
      return;
    }
    if (!ready || closing || worker !== current.worker) {
      readySince = undefined;
      return;
    }
    const now = Date.now();
    readySince ??= now;
    const waitedMs = now - Math.max(readySince, lastStartAt);
    if (waitedMs >= stuckAfterMs) await replace(waitedMs);
  };

  // One check at a time: a slow one (Redis failing over) is not stacked upon.
  const supervision = everyInterval({ name: `bullmq-supervisor.${name}`, everyMs: intervalMs, scope: 'replica', logger, run: check });

  return {
    get worker() {
      return current.worker;
    },
    get replacements() {
      return replacements;
    },
    async close() {
      closing = true;
      await settlesWithin(supervision.close(), closeTimeoutMs);
      await closeWithin(current.worker, false, closeTimeoutMs);
      if (checkQueue) await settlesWithin(checkQueue.close(), 5_000);
    },
  };
}
