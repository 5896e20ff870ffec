import type { NatsConnection } from '@nats-io/nats-core';
import type { Link } from '@opentelemetry/api';
import { type EventData, type EventEnvelope, type EventType, eventDataSchemas, type Identity, type RpcDefinition } from '@voice/proto';
import type { z } from 'zod';
import { DeadLetters } from './dead-letters.js';
import type { EventId } from './ids.js';
import { Broadcasts } from './nats/broadcasts.js';
import { BusConnection } from './nats/connection.js';
import { type ConsumeOptions, EventConsumers, type EventHandler } from './nats/event-consumers.js';
import { EventPublisher } from './nats/event-publisher.js';
import { EventStream } from './nats/event-stream.js';
import type { BusOptions } from './nats/options.js';
import { type CallOptions, RpcCaller } from './nats/rpc-caller.js';
import type { RpcObserver } from './nats/rpc-observer.js';
import { type RpcHandler, RpcResponder } from './nats/rpc-responder.js';
import type { StoredTraceContext } from './trace.js';
import type { BackgroundWork } from './workers.js';

export type { ConsumeOptions, EventHandler } from './nats/event-consumers.js';
export { newEvent } from './nats/event-publisher.js';
export type { BusOptions } from './nats/options.js';
export { type CallOptions, defaultRequestTimeoutMs } from './nats/rpc-caller.js';
export type { RpcObserver } from './nats/rpc-observer.js';
export type { RpcHandler } from './nats/rpc-responder.js';
export { natsServer } from './nats/server-url.js';

/**
 * The one NATS connection of a process: typed request/reply between services (queue groups, timeouts,
 * errors carried as `{code, message}`) and domain events on JetStream (durable consumers, ack after work).
 * Each concern is a part of its own in `./nats/`; this class is what callers hold.
 */
export class Bus {
  readonly connection: NatsConnection;
  /** Where consumers put the events they cannot read; the operator's `dead-letters` commands read it. */
  readonly deadLetters: DeadLetters;
  private readonly link: BusConnection;
  private readonly responder: RpcResponder;
  private readonly caller: RpcCaller;
  private readonly broadcasts: Broadcasts;
  private readonly stream: EventStream;
  private readonly publisher: EventPublisher;
  private readonly consumers: EventConsumers;

  private constructor(link: BusConnection, options: BusOptions) {
    this.link = link;
    this.connection = link.connection;
    const replicas = options.streamReplicas ?? 1;
    this.deadLetters = new DeadLetters(link.connection, { namespace: options.namespace, replicas, logger: options.logger });
    this.responder = new RpcResponder(link, options.secret);
    this.caller = new RpcCaller(link, options.secret, options.requestTimeoutMs);
    this.broadcasts = new Broadcasts(link);
    this.stream = new EventStream(link, replicas);
    this.publisher = new EventPublisher(link, this.stream);
    this.consumers = new EventConsumers(link, this.stream, this.deadLetters, options.eventSchemas ?? eventDataSchemas);
  }

  static async connect(options: BusOptions): Promise<Bus> {
    return new Bus(await BusConnection.open(options), options);
  }

  /** Reports every request this bus answers and makes from now on to `observer` (the app's metrics). */
  observeRpc(observer: RpcObserver): void {
    this.responder.observe(observer);
    this.caller.observe(observer);
  }

  /** A subject inside this bus's namespace. */
  subject(name: string): string {
    return this.link.subject(name);
  }

  get streamName(): string {
    return this.stream.name;
  }

  /**
   * Serves one operation with a queue group, so any number of replicas share the load. The operation's
   * declared scope is enforced here, before its input is read, as the REST services do for a route: a read
   * key is refused a write whoever calls (`forbidden_scope`).
   */
  serve<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>): void {
    this.responder.serve(definition, handler);
  }

  /**
   * Calls an operation on whichever replica answers first. Remote errors are rethrown as ApiError; no answer
   * within the deadline (`timeoutMs`, else `requestTimeoutMs`) is `unavailable`.
   *
   * Within its deadline a call rides out what losing a NATS server does to it: made while the connection is
   * down, it waits for the reconnect (the client drops what is published while disconnected, so sending it
   * then would only wait out the deadline); answered "no responders" (a responder reconnecting, or its
   * subscription not yet known to this connection's server in a cluster), it is sent again, at growing
   * intervals. Nobody received a request answered so, so sending it again runs nothing twice. A request
   * that may have reached a responder (no reply before the deadline) is never sent twice.
   */
  call<D extends RpcDefinition>(
    definition: D,
    identity: Identity,
    input: z.input<D['input']>,
    options: CallOptions = {},
  ): Promise<z.output<D['output']>> {
    return this.caller.call(definition, identity, input, options);
  }

  /**
   * Sends a message to every process listening on the subject (no queue group, not stored): for things
   * every replica must hear at once, such as "this key was revoked, drop it from your cache".
   */
  broadcast(subject: string, data: unknown): void {
    this.broadcasts.broadcast(subject, data);
  }

  /** Hears every broadcast on a subject, in this process. */
  listen(subject: string, handler: (data: unknown) => void): void {
    this.broadcasts.listen(subject, handler);
  }

  /** Resolves once the connection is up: at once, or after the reconnect under way (for raw requests on `connection`). */
  untilConnected(): Promise<void> {
    return this.link.untilConnected();
  }

  /** Waits until the server has seen everything this connection sent so far. */
  flush(): Promise<void> {
    return this.link.flush();
  }

  /**
   * Creates the events stream if it is missing, with `streamReplicas` copies; a stream that exists with
   * another number is changed to it. Idempotent, and shared by every caller in this process.
   */
  ensureStream(): Promise<void> {
    return this.stream.ensure();
  }

  /** Publishes a domain event durably; resolves once JetStream has stored it. */
  publish<T extends EventType>(
    type: T,
    orgId: string,
    data: EventData<T>,
    options: { id?: EventId; links?: Link[] } = {},
  ): Promise<EventEnvelope<T>> {
    return this.publisher.publish(type, orgId, data, options);
  }

  /**
   * Publishes an event built earlier (an outbox row), with its id as JetStream's de-duplication id: publishing
   * the same event again within the stream's duplicate window stores nothing new.
   */
  publishEnvelope<T extends EventType>(
    event: EventEnvelope<T>,
    /**
     * `traceContext`: the trace to publish in (an outbox row's); `links`: the spans of the work an event stands
     * for when it has several (a batch's requests), where one parent cannot say it.
     */
    options: { timeoutMs?: number; traceContext?: StoredTraceContext; links?: Link[] } = {},
  ): Promise<void> {
    return this.publisher.publishEnvelope(event, options);
  }

  /**
   * Consumes events with a durable consumer: events published while this process was down are delivered
   * when it comes back. An event is acknowledged only after the handler resolves; a handler that throws
   * gets the event again after a back-off. The returned work stops consuming (and waits for the events in
   * hand) when closed; `drain` closes any still running.
   */
  consume<T extends EventType = EventType>(options: ConsumeOptions<T>, handler: EventHandler<T>): Promise<BackgroundWork> {
    return this.consumers.consume(options, handler);
  }

  /** Round trip to the server, bounded: the readiness probe's NATS check. */
  ping(timeoutMs = 1_000): Promise<void> {
    return this.link.ping(timeoutMs);
  }

  /** Stops consuming, lets in-flight requests finish, then closes. */
  async drain(): Promise<void> {
    await this.consumers.stopAll();
    await this.link.drain();
  }

  /** Deletes this namespace's streams (events and dead letters); for tests that own a namespace. */
  async deleteStream(): Promise<void> {
    await this.stream.delete();
    await this.deadLetters.deleteStream();
  }
}
