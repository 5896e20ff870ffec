import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { withDeadline } from './deadline.js';
import type { Bus } from './nats.js';
import type { OutboxRelay } from './outbox.js';

/**
 * The metrics every deployable shares beyond its HTTP requests (health.ts): its NATS operations, its durable
 * consumers' backlog, its outbox. Names and labels follow Prometheus' conventions (base units, `_total` on
 * counters); no label takes an unbounded value: operations, consumers, checks and states are fixed sets,
 * never ids. Every app's registry also labels each series with `service`, the deployable's name (health.ts).
 *
 * Values that need a query (an outbox's lag, a consumer's backlog) are read when Prometheus scrapes, by the
 * gauge's `collect`, within `collectTimeoutMs`: no loop polls in between. A read that fails or times out
 * counts in `metrics_collect_errors_total{collector}` and leaves its gauges out of that scrape (NaN, or no
 * series for a labelled gauge), so a stale figure is never shown as a current one.
 */

/** How long a value read at scrape time may take; Prometheus' own scrape timeout is 10 s by default. */
export const collectTimeoutMs = 2_000;

/** Buckets of request durations, in seconds (the same as `http_request_duration_seconds`). */
export const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A metric of the registry by name, made by `make` the first time: several parts of an app may share one. */
export function sharedMetric<M>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

/** The reads of each registry under way, which its error counter waits for: a failure shows in the same scrape. */
const readsUnderWay = new WeakMap<Registry, Set<Promise<unknown>>>();

function collectErrors(registry: Registry): Counter<'collector'> {
  return sharedMetric(registry, 'metrics_collect_errors_total', () => {
    const underWay = new Set<Promise<unknown>>();
    readsUnderWay.set(registry, underWay);
    return new Counter({
      name: 'metrics_collect_errors_total',
      help: 'Values read at scrape time that failed or took too long (their gauges are left out of that scrape), by collector',
      labelNames: ['collector'],
      registers: [registry],
      async collect() {
        // The registry starts every collect of a scrape before any of them resumes: after one turn, the reads
        // of this scrape are all under way.
        await null;
        await Promise.allSettled(underWay);
      },
    });
  });
}

/**
 * A value read at scrape time and shared by the gauges that show its parts: one read per scrape (the gauges
 * of a registry are collected together), bounded by `timeoutMs`. Resolves `undefined` when the read fails
 * or times out, counted under `collector`.
 */
export function scrapedValue<T>(
  registry: Registry,
  collector: string,
  read: () => Promise<T>,
  timeoutMs = collectTimeoutMs,
): () => Promise<T | undefined> {
  const errors = collectErrors(registry);
  let current: { value: Promise<T | undefined>; atMs: number } | undefined;
  return () => {
    // Reused for a second: the gauges of one scrape start together, and a second Prometheus replica's
    // scrape at the same moment needs no query of its own.
    if (current && Date.now() - current.atMs < 1_000) return current.value;
    const value = withDeadline(read(), timeoutMs, `${collector} did not answer within ${timeoutMs} ms`).catch(() => {
      errors.inc({ collector });
      return undefined;
    });
    const underWay = readsUnderWay.get(registry);
    underWay?.add(value);
    void value.finally(() => underWay?.delete(value));
    current = { value, atMs: Date.now() };
    return value;
  };
}

/**
 * RED of NATS requests, by operation (the subject, e.g. `svc.leads.create`) and outcome (`ok` or the error's
 * code): those this process answers (`nats_rpc_server_duration_seconds`) and those it makes
 * (`nats_rpc_client_duration_seconds`, where a request no replica answered in time is `unavailable`).
 */
export function observeRpc(registry: Registry, bus: Bus): void {
  const histogram = (name: string, help: string) =>
    new Histogram({ name, help, labelNames: ['operation', 'code'], buckets: durationBuckets, registers: [registry] });
  const server = histogram(
    'nats_rpc_server_duration_seconds',
    'NATS requests this process answered, by operation and outcome code (ok, or the error code), in seconds',
  );
  const client = histogram(
    'nats_rpc_client_duration_seconds',
    'NATS requests this process made, by operation and outcome code (ok, or the error code; unavailable when no replica answered in time), in seconds',
  );
  bus.observeRpc({
    served: (operation, code, seconds) => server.observe({ operation, code }, seconds),
    called: (operation, code, seconds) => client.observe({ operation, code }, seconds),
  });
}

/** The durable consumer names of a bus's stream as given in code (`webhooks-fanout`), without the test namespace. */
function durableName(bus: Bus, name: string): string {
  // `subject('')` is the namespace followed by a dot, or nothing without a namespace.
  const namespace = bus.subject('').replace(/\.$/, '');
  return namespace && name.startsWith(`${namespace}_`) ? name.slice(namespace.length + 1) : name;
}

/**
 * The backlog of the JetStream consumers a deployable owns (their durable names start with its name and a
 * dash: `webhooks-fanout`, `gateway-audit`), read from the server at scrape time: events not yet delivered
 * (`jetstream_consumer_pending_messages`), delivered and not yet acknowledged (`…_ack_pending_messages`),
 * and being delivered again (`…_redelivered_messages`).
 */
export function observeConsumers(registry: Registry, bus: Bus, owner: string): void {
  let manager: Promise<JetStreamManager> | undefined;
  const read = scrapedValue(registry, 'jetstream_consumers', async () => {
    manager ??= jetstreamManager(bus.connection).catch((error: unknown) => {
      manager = undefined;
      throw error;
    });
    const consumers: Array<{ consumer: string; pending: number; ackPending: number; redelivered: number }> = [];
    try {
      for await (const info of (await manager).consumers.list(bus.streamName)) {
        const consumer = durableName(bus, info.name);
        if (!consumer.startsWith(`${owner}-`)) continue;
        consumers.push({ consumer, pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered });
      }
    } catch (error) {
      // No stream yet (nothing was published or consumed): no consumer either.
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
    }
    return consumers;
  });
  const gauge = (name: string, help: string, pick: (consumer: { pending: number; ackPending: number; redelivered: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['consumer'],
      registers: [registry],
      async collect() {
        const consumers = await read();
        this.reset();
        for (const consumer of consumers ?? []) this.set({ consumer: consumer.consumer }, pick(consumer));
      },
    });
  gauge('jetstream_consumer_pending_messages', 'Events of the stream this durable consumer has not been delivered yet', (c) => c.pending);
  gauge(
    'jetstream_consumer_ack_pending_messages',
    'Events delivered to this durable consumer and not yet acknowledged (in a handler, or waiting for redelivery)',
    (c) => c.ackPending,
  );
  gauge(
    'jetstream_consumer_redelivered_messages',
    'Events this durable consumer is being delivered again (its handler failed or took longer than the ack wait)',
    (c) => c.redelivered,
  );
}

/** What reading an outbox's lag needs of a Prisma client (the service's, whose search path is its schema): one raw query. */
export interface RawQueries {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/**
 * Rows of a table that wait for something (events to publish, approvals to decide), read at scrape time: how
 * many (`count`) and how long the oldest has waited (`oldestAge`, by `created_at`; 0 when none waits).
 */
export function observeBacklog(
  registry: Registry,
  options: {
    collector: string;
    database: RawQueries;
    /** The table, and which of its rows wait (an SQL condition; all rows when omitted). */
    table: string;
    where?: string;
    count: { name: string; help: string };
    oldestAge: { name: string; help: string };
  },
): void {
  const condition = options.where ? ` WHERE ${options.where}` : '';
  const read = scrapedValue(registry, options.collector, async () => {
    const rows = await options.database.$queryRawUnsafe<Array<{ waiting: number; oldest_age: number }>>(
      `SELECT count(*)::int AS waiting, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest_age FROM ${options.table}${condition}`,
    );
    return rows[0] ?? { waiting: 0, oldest_age: 0 };
  });
  new Gauge({
    ...options.count,
    registers: [registry],
    async collect() {
      this.set((await read())?.waiting ?? Number.NaN);
    },
  });
  new Gauge({
    ...options.oldestAge,
    registers: [registry],
    async collect() {
      this.set((await read())?.oldest_age ?? Number.NaN);
    },
  });
}

/** A counter whose value is read from a running total kept elsewhere (a relay's `stats`), at scrape time. */
function countedElsewhere(registry: Registry, name: string, help: string, total: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(total());
    },
  });
}

/**
 * A service's transactional outbox: rows waiting to be published (`outbox_pending_events`) and the oldest
 * one's age (`outbox_oldest_pending_age_seconds`, 0 when none waits), read from the table at scrape time
 * through the service's own connections (the relay's one connection may be held by a round waiting for
 * NATS); and what this process's relay did (`outbox_events_published_total`, `outbox_relay_failures_total`).
 */
export function observeOutbox(registry: Registry, relay: OutboxRelay, database: RawQueries): void {
  observeBacklog(registry, {
    collector: 'outbox',
    database,
    table: 'outbox_events',
    count: { name: 'outbox_pending_events', help: 'Events written to the outbox table and not yet published to JetStream' },
    oldestAge: {
      name: 'outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest event in the outbox table not yet published (0 when none waits): the outbox lag',
    },
  });
  countedElsewhere(
    registry,
    'outbox_events_published_total',
    "Events this process's outbox relay published to JetStream",
    () => relay.stats.published,
  );
  countedElsewhere(
    registry,
    'outbox_relay_failures_total',
    "Rounds of this process's outbox relay that failed (NATS or Postgres away); it retries with back-off",
    () => relay.stats.failedRounds,
  );
}

/** What an app reports beyond its requests (createHttpApp's `instrument`): each part it has. */
export interface Instruments {
  /** Its NATS connection: the requests it answers and makes, and the backlog of the consumers it owns. */
  bus?: Bus;
  /** Its outbox relay and the Prisma client the lag is read through. */
  outbox?: { relay: OutboxRelay; database: RawQueries };
}

/** Registers the metrics of `instruments` on an app's registry; `owner` is the deployable's name. */
export function instrumentRegistry(registry: Registry, owner: string, instruments: Instruments): void {
  if (instruments.bus) {
    observeRpc(registry, instruments.bus);
    observeConsumers(registry, instruments.bus, owner);
  }
  if (instruments.outbox) observeOutbox(registry, instruments.outbox.relay, instruments.outbox.database);
}
