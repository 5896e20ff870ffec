import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamInfo,
} from '@nats-io/jetstream';
import { eventSubjectPrefix, eventsStreamName } from '@voice/proto';
import type { BusConnection } from './connection.js';

const day = 24 * 60 * 60 * 1000;

/**
 * The JetStream stream domain events are stored in (one per namespace), with the clients that publish to it
 * and manage its consumers.
 */
export class EventStream {
  readonly client: JetStreamClient;
  private ready: Promise<void> | undefined;
  private managerPromise: Promise<JetStreamManager> | undefined;

  constructor(
    private readonly bus: BusConnection,
    /** Copies of the stream the servers keep (JETSTREAM_REPLICAS). */
    private readonly replicas: number,
  ) {
    this.client = jetstream(bus.connection);
  }

  get name(): string {
    return this.bus.namespace ? `${eventsStreamName}_${this.bus.namespace.toUpperCase()}` : eventsStreamName;
  }

  /**
   * Creates the stream if it is missing, with `replicas` copies; a stream that exists with another number is
   * changed to it (JetStream copies the data to the new replicas, or drops the extra ones, while the stream
   * keeps serving). Idempotent, and shared by every caller in this process.
   */
  ensure(): Promise<void> {
    this.ready ??= (async () => {
      const manager = await this.manager();
      const config = {
        name: this.name,
        subjects: [this.bus.subject(`${eventSubjectPrefix}.>`)],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        // Seven days covers any consumer outage worth surviving; webhooks keep their own log beyond that.
        max_age: 7 * day * 1_000_000,
        // Deduplicates a retried publish of the same event id.
        duplicate_window: 2 * 60 * 1_000_000_000,
        num_replicas: this.replicas,
      };
      let existing: StreamInfo | undefined;
      try {
        existing = await manager.streams.info(config.name);
      } catch (error) {
        if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
      }
      try {
        if (!existing) await manager.streams.add(config);
        else if (existing.config.num_replicas !== this.replicas) {
          await manager.streams.update(config.name, { ...existing.config, num_replicas: this.replicas });
        }
      } catch (error) {
        // Say which setting the server refused: "replicas > 1 not supported in non-clustered mode" alone
        // does not name JETSTREAM_REPLICAS.
        throw new Error(`NATS refused the events stream with ${this.replicas} replicas (JETSTREAM_REPLICAS): ${(error as Error).message}`, {
          cause: error,
        });
      }
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** Shared once it exists; one that failed (NATS away at the first use) is asked for again next time. */
  manager(): Promise<JetStreamManager> {
    this.managerPromise ??= jetstreamManager(this.bus.connection).catch((error: unknown) => {
      this.managerPromise = undefined;
      throw error;
    });
    return this.managerPromise;
  }

  /** Deletes the stream, if it is there. */
  async delete(): Promise<void> {
    const manager = await this.manager();
    await manager.streams.delete(this.name).catch(() => false);
  }
}
