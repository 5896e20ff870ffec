import type { EventData, EventEnvelope, EventType } from '@voice/proto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { EventId } from './ids.js';
import { type Bus, newEvent } from './nats.js';
import { schemaPoolConfig } from './prisma.js';
import { type StoredTraceContext, storedTraceContext } from './trace.js';
import type { BackgroundWork } from './workers.js';

/**
 * Transactional outbox. A change and the events it causes are committed together: the events go into the
 * service's own `outbox_events` table in the change's transaction, so a write never waits for NATS and an
 * event of a committed change is never lost. A relay then publishes pending rows to JetStream, with the
 * event id as de-duplication id, and deletes them. Every service that publishes events declares the table
 * in its Prisma schema:
 *
 *   model OutboxEvent {
 *     seq         BigInt   @id @default(autoincrement())
 *     eventId     String   @unique @map("event_id")
 *     aggregateId String   @map("aggregate_id")
 *     envelope    String
 *     createdAt   DateTime @default(now()) @map("created_at") @db.Timestamptz(3)
 *     traceContext String? @map("trace_context")
 *     @@index([aggregateId, seq])
 *     @@map("outbox_events")
 *   }
 */

export interface OutboxEntry {
  event: EventEnvelope;
  /**
   * The record the event is about (a call, a lead): the relay publishes the events of one aggregate in the
   * order they were written. An event with no order to keep uses its own id.
   */
  aggregateId: string;
}

/** The events one change causes, collected while the change runs and written in its transaction. */
export class PendingEvents {
  readonly entries: OutboxEntry[] = [];

  add<T extends EventType>(
    type: T,
    orgId: string,
    data: EventData<T>,
    options: { id?: EventId | undefined; aggregateId?: string | undefined } = {},
  ): EventEnvelope<T> {
    const event = newEvent(type, orgId, data, options.id);
    // Any one type's event is an event; TypeScript does not resolve that for a generic `T` by itself.
    this.entries.push({ event: event as EventEnvelope, aggregateId: options.aggregateId ?? event.id });
    return event;
  }
}

/** What writing outbox rows needs of a Prisma client or transaction: one raw statement. */
export interface OutboxWriter {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/**
 * Writes outbox rows, in the order given. An event id already pending is skipped: a retried step that derives
 * the same id (telephony's status events) adds nothing, and once published JetStream drops the repeat.
 */
export async function insertOutboxRows(tx: OutboxWriter, entries: readonly OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const values: string[] = [];
  const parameters: Array<string | null> = [];
  // The writer's trace context (null with tracing off): the relay publishes each row in the writer's trace.
  const traceContext = storedTraceContext();
  for (const { event, aggregateId } of entries) {
    const at = parameters.length;
    values.push(`($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4})`);
    parameters.push(event.id, aggregateId, JSON.stringify(event), traceContext);
  }
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox_events (event_id, aggregate_id, envelope, trace_context) VALUES ${values.join(', ')} ON CONFLICT (event_id) DO NOTHING`,
    ...parameters,
  );
}

/**
 * Runs a change in one transaction together with the events it records, then wakes the relay. The rows are
 * written last, after the change's own row locks are held, so two changes of one record get their outbox
 * sequence numbers in commit order.
 */
export async function commitWithEvents<Tx extends OutboxWriter, T>(
  transaction: (work: (tx: Tx) => Promise<T>) => Promise<T>,
  relay: { nudge(): void } | undefined,
  change: (tx: Tx, events: PendingEvents) => Promise<T>,
): Promise<T> {
  let recorded = 0;
  const result = await transaction(async (tx) => {
    const events = new PendingEvents();
    const value = await change(tx, events);
    await insertOutboxRows(tx, events.entries);
    recorded = events.entries.length;
    return value;
  });
  if (recorded > 0) relay?.nudge();
  return result;
}

export interface OutboxRelayOptions {
  bus: Bus;
  logger: Logger;
  databaseUrl: string;
  /** The service's Postgres schema, whose `outbox_events` table this relay drains. */
  schema: string;
  /** Rows taken per round (default 100). */
  batchSize?: number;
  /** How often pending rows are looked for without a nudge: rows a crashed process left (default 1 s). */
  pollMs?: number;
  /** Longest wait between attempts while NATS or Postgres is away (default 5 s). */
  maxBackoffMs?: number;
  /** How long one publish waits for JetStream's acknowledgement (default 5 s). */
  publishTimeoutMs?: number;
}

interface PendingRow {
  seq: string;
  envelope: string;
  trace_context: StoredTraceContext;
}

/**
 * Rows whose aggregate has no earlier pending row, oldest first, that no other relay holds. Taking only the
 * head of each aggregate keeps its order across replicas: the next event of a call is selectable only once
 * the previous one is published and deleted. SKIP LOCKED lets replicas share the table without waiting.
 */
const selectHeads = `
  SELECT seq, envelope, trace_context FROM outbox_events AS o
  WHERE NOT EXISTS (SELECT 1 FROM outbox_events AS e WHERE e.aggregate_id = o.aggregate_id AND e.seq < o.seq)
  ORDER BY seq
  LIMIT $1
  FOR UPDATE SKIP LOCKED`;

/**
 * Publishes a service's pending outbox rows to JetStream. Nudged in-process after each commit, and polls so
 * rows of a process that died after its commit go out too. While NATS is away it backs off and probes with
 * one row at a time, so an outage does not pile publishes into the client's reconnect buffer. A row that
 * was published but not deleted (a crash in between) is published again under the same id, which JetStream
 * drops within its 2-minute duplicate window.
 */
export class OutboxRelay implements BackgroundWork {
  private readonly pool: pg.Pool;
  private readonly options: Required<Omit<OutboxRelayOptions, 'bus' | 'logger' | 'databaseUrl' | 'schema'>>;
  private running: Promise<void> | undefined;
  /** A lost connection, idle or checked out, is replaced on next use; unhandled, it would end the process. */
  private readonly onClientError = (error: Error) => this.config.logger.warn({ err: error }, 'outbox database connection lost');
  private stopped: Promise<void> | undefined;
  private stopping = false;
  private nudged = false;
  private failures = 0;
  private wake: (() => void) | undefined;
  /** What this relay did since it was made, for the app's metrics (kit's metrics.ts): events published, rounds failed. */
  readonly stats = { published: 0, failedRounds: 0 };

  constructor(private readonly config: OutboxRelayOptions) {
    this.options = {
      batchSize: config.batchSize ?? 100,
      pollMs: config.pollMs ?? 1_000,
      maxBackoffMs: config.maxBackoffMs ?? 5_000,
      publishTimeoutMs: config.publishTimeoutMs ?? 5_000,
    };
    this.pool = new pg.Pool({
      ...schemaPoolConfig(config.databaseUrl, config.schema, { maxConnections: 1 }),
      connectionTimeoutMillis: 5_000,
    });
    // A connection lost while idle is replaced on next use; unhandled, the pool's error would end the process.
    this.pool.on('error', this.onClientError);
  }

  /** Starts publishing in the background; idempotent. */
  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /** A change with events was committed: publish now rather than at the next poll (not while backing off). */
  nudge(): void {
    this.nudged = true;
    if (this.failures === 0) this.wake?.();
  }

  /** Finishes the round in progress and closes the relay's connection; rows left pending wait for the next start. */
  close(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    this.stopped ??= (async () => {
      await this.running;
      await this.pool.end();
    })();
    return this.stopped;
  }

  /**
   * One round: publishes up to a batch of pending rows and deletes the published ones, in one transaction
   * that holds their row locks. Resolves with how many went out; rejects when any could not be published.
   */
  async publishPending(): Promise<number> {
    const client = await this.pool.connect();
    // The pool listens for errors of idle clients only: a connection lost while this one is checked out (say
    // during a publish) would otherwise be an uncaught error. The next query on it fails, and it is dropped.
    client.on('error', this.onClientError);
    let healthy = false;
    try {
      await client.query('BEGIN');
      const limit = this.failures > 0 ? 1 : this.options.batchSize;
      const { rows } = await client.query<PendingRow>(selectHeads, [limit]);
      // Heads of distinct aggregates: no order to keep between them, so they are published together.
      const results = await Promise.allSettled(
        rows.map(async (row) =>
          this.config.bus.publishEnvelope(JSON.parse(row.envelope) as EventEnvelope, {
            timeoutMs: this.options.publishTimeoutMs,
            traceContext: row.trace_context,
          }),
        ),
      );
      const published = rows.filter((_, index) => results[index]?.status === 'fulfilled').map((row) => row.seq);
      if (published.length > 0) await client.query('DELETE FROM outbox_events WHERE seq = ANY($1::bigint[])', [published]);
      await client.query('COMMIT');
      healthy = true;
      this.stats.published += published.length;
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return published.length;
    } finally {
      if (!healthy) await client.query('ROLLBACK').catch(() => {});
      client.off('error', this.onClientError);
      client.release(!healthy);
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.nudged = false;
      let published = 0;
      try {
        published = await this.publishPending();
        if (this.failures > 0) this.config.logger.info({ attempts: this.failures }, 'outbox publishing again');
        this.failures = 0;
      } catch (error) {
        this.failures++;
        this.stats.failedRounds++;
        // One line when an outage starts and one a minute or so while it lasts, not one per probe.
        if (this.failures === 1 || this.failures % 12 === 0) {
          this.config.logger.warn({ err: error, attempts: this.failures }, 'outbox events not published; retrying');
        }
      }
      if (this.stopping) break;
      // A round that published something may have left more behind (a full batch, the next event of an aggregate).
      if (this.failures === 0 && (published > 0 || this.nudged)) continue;
      await this.sleep(this.failures > 0 ? Math.min(this.options.maxBackoffMs, 100 * 2 ** this.failures) : this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.wake = undefined;
    });
  }
}
