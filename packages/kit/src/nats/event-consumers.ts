import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { type EventEnvelope, type EventType, eventSubject } from '@voice/proto';
import { type DeadLetters, type EventSchemas, readEvent } from '../dead-letters.js';
import { contextFromNats, inSpan, spanKind } from '../trace.js';
import type { BackgroundWork } from '../workers.js';
import type { BusConnection } from './connection.js';
import type { EventStream } from './event-stream.js';

/** Handles events of the types `T`: `data` is typed, and was checked against `eventDataSchemas` before the call. */
export type EventHandler<T extends EventType = EventType> = (event: EventEnvelope<T>) => Promise<void>;

export interface ConsumeOptions<T extends EventType = EventType> {
  /** Durable consumer name: one per consuming deployable and purpose, e.g. `webhooks-fanout`. */
  durable: string;
  /** Event types to receive; all when omitted. */
  types?: readonly T[];
  /** How long a handler may take before the server redelivers the event. */
  ackWaitMs?: number;
  /**
   * After this many deliveries an event is given up and dead-lettered (`DeadLetters`, reason
   * `max_deliveries`). Unlimited by default: an outage of whatever the handler writes to only delays events
   * (the back-off caps at 30 s). An event this version cannot read (malformed, of a type it does not know,
   * or whose `data` does not match its type's schema) is dead-lettered at once: redelivering it would fail
   * the same way. Fields a schema does not name are accepted.
   */
  maxDeliver?: number;
  /**
   * How many events may be in the handler at once (default 1: one after the other). A batching handler
   * (one that resolves when its batch is written) needs at least its batch size, or every batch holds one.
   */
  concurrency?: number;
}

/** The durable consumers of the events stream this process runs, each acknowledging an event after its handler. */
export class EventConsumers {
  private readonly running: Array<{ stop: () => Promise<void> }> = [];

  constructor(
    private readonly bus: BusConnection,
    private readonly stream: EventStream,
    private readonly deadLetters: DeadLetters,
    private readonly schemas: EventSchemas,
  ) {}

  async consume<T extends EventType = EventType>(options: ConsumeOptions<T>, handler: EventHandler<T>): Promise<BackgroundWork> {
    await this.stream.ensure();
    const manager = await this.stream.manager();
    const streamName = this.stream.name;
    const durable = this.bus.durableName(options.durable);
    // One type is filtered by the server; several are filtered here, since servers before 2.10 (Debian's
    // 2.9 among them) take a single filter subject only.
    const types: readonly EventType[] = options.types ?? [];
    const config = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
      max_deliver: options.maxDeliver ?? -1,
      ...(types.length === 1 ? { filter_subject: this.bus.subject(eventSubject(types[0] as EventType)) } : {}),
    };
    const wanted = types.length > 1 ? new Set<string>(types) : undefined;
    try {
      await manager.consumers.info(streamName, durable);
      await manager.consumers.update(streamName, durable, config);
    } catch {
      await manager.consumers.add(streamName, config);
    }
    const consumer = await this.stream.client.consumers.get(streamName, durable);
    const concurrency = Math.max(1, options.concurrency ?? 1);
    // Pull requests that expire after 5 s (the library's default is 30 s, heartbeats at half of it): when a
    // cluster loses the server leading this consumer, or the one this connection used, the client notices
    // (two missed heartbeats, or the reconnect) and pulls again from the new leader, retrying every `expires`;
    // with the default, events waited up to half a minute after a server's loss.
    const messages = await consumer.consume({ max_messages: Math.max(64, concurrency * 2), expires: 5_000 });
    // An event whose last delivery timed out (no handler failure to dead-letter it on) is announced by JetStream.
    const advisories = config.max_deliver > 0 ? this.deadLetters.watchMaxDeliveries(streamName, durable, options.durable) : undefined;
    const done = (async () => {
      const inFlight = new Set<Promise<void>>();
      for await (const message of messages) {
        const work: Promise<void> = this.handleEvent(message, handler as EventHandler, options, wanted).finally(() =>
          inFlight.delete(work),
        );
        inFlight.add(work);
        if (inFlight.size >= concurrency) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
    })();
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        await messages.close();
        await done;
        advisories?.unsubscribe();
      })());
    this.running.push({ stop });
    return { close: stop };
  }

  /** Stops every consumer, each after the events in hand. */
  async stopAll(): Promise<void> {
    await Promise.allSettled(this.running.map((consumer) => consumer.stop()));
  }

  /**
   * `wanted`: the types this consumer filters in the client (see consume); others are acknowledged unread. An
   * event it cannot read, or that failed on its last allowed delivery, is dead-lettered (readEvent).
   */
  private async handleEvent(
    message: JsMsg,
    handler: EventHandler,
    options: Pick<ConsumeOptions, 'durable' | 'maxDeliver'>,
    wanted: Set<string> | undefined,
  ): Promise<void> {
    const { durable } = options;
    const verdict = readEvent(message, { durable, schemas: this.schemas, wanted });
    if (verdict.kind === 'skip') {
      message.ack();
      return;
    }
    if (verdict.kind === 'dead') {
      await this.deadLetters.deadLetter(message, durable, verdict);
      return;
    }
    const { event } = verdict;
    try {
      await this.handleTraced(message, event, durable, handler);
      message.ack();
    } catch (error) {
      const attempt = message.info.deliveryCount;
      if (options.maxDeliver !== undefined && options.maxDeliver > 0 && attempt >= options.maxDeliver) {
        const detail = `failed on each of ${attempt} deliveries; the last: ${(error as Error)?.message ?? String(error)}`;
        await this.deadLetters.deadLetter(message, durable, { reason: 'max_deliveries', detail, eventId: event.id, eventType: event.type });
        return;
      }
      this.bus.logger.warn({ err: error, event_id: event.id, type: event.type, durable, attempt }, 'event handler failed; will retry');
      message.nak(Math.min(30_000, 250 * 2 ** attempt));
    }
  }

  /** Runs an event's handler in a consumer span that continues the publisher's trace, when tracing is on. */
  private handleTraced(message: JsMsg, event: EventEnvelope, durable: string, handler: EventHandler): Promise<void> {
    const parent = contextFromNats(message.headers);
    if (!parent) return handler(event);
    const subject = eventSubject(event.type);
    return inSpan(
      `process ${subject}`,
      {
        kind: spanKind.consumer,
        parent,
        attributes: this.bus.messagingAttributes(subject, 'process', {
          'messaging.consumer.group.name': durable,
          'messaging.message.id': event.id,
        }),
      },
      () => handler(event),
    );
  }
}
