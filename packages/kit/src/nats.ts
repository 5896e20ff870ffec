import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamInfo,
} from '@nats-io/jetstream';
import { headers, type Msg, type NatsConnection, RequestError, type Subscription, TimeoutError } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { Link } from '@opentelemetry/api';
import {
  type EventData,
  type EventEnvelope,
  type EventType,
  eventDataSchemas,
  eventSubject,
  eventSubjectPrefix,
  eventsStreamName,
  type Identity,
  type RpcDefinition,
  type RpcReply,
  rpcReplySchema,
  rpcRequestSchema,
} from '@voice/proto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { DeadLetters, type EventSchemas, readEvent } from './dead-letters.js';
import { withDeadline } from './deadline.js';
import { ApiError, dependencyReason, toApiError } from './errors.js';
import { natsSignatureHeader, signNatsRequest, verifyNatsRequest } from './identity.js';
import { type EventId, eventId } from './ids.js';
import { requireScope } from './service-auth.js';
import { findNulCharacter } from './text.js';
import {
  activeSpan,
  contextFromNats,
  contextFromStored,
  injectIntoNats,
  inSpan,
  markFailed,
  type StoredTraceContext,
  spanKind,
} from './trace.js';
import type { BackgroundWork } from './workers.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface BusOptions {
  url: string;
  /** Connection name, shown in NATS monitoring: the deployable's name. */
  name: string;
  /** Prefix for subjects, the stream and consumers; empty in production, unique per test. */
  namespace: string;
  logger: Logger;
  /**
   * INTERNAL_SIGNING_SECRET: every request this bus sends is signed with it, and every request it serves
   * must be, so a NATS client without it can call nothing.
   */
  secret: string;
  /**
   * A request's deadline: how long it may wait for a reply, riding out a reconnect or a responder that
   * is not subscribed yet, before it fails as `unavailable`.
   */
  requestTimeoutMs?: number;
  /**
   * JETSTREAM_REPLICAS: copies of the events stream (and of its consumers, which follow the stream) the
   * servers keep; 1 by default, 3 on a cluster, so that losing one server loses nothing.
   */
  streamReplicas?: number;
  /** How long the first connection may take, attempts that time out retried, before connecting fails. */
  startupTimeoutMs?: number;
  /**
   * The event types this process reads and their `data` schemas: proto's `eventDataSchemas`, the version it
   * was built with. A test gives an older or a newer version's, to run two versions side by side.
   */
  eventSchemas?: EventSchemas;
}

/**
 * What a bus reports of each NATS request it answers (`served`) and makes (`called`): the operation's subject
 * (without the namespace), `ok` or the error's code, and the time it took. Kit's metrics.ts counts them.
 */
export interface RpcObserver {
  served(operation: string, code: string, seconds: number): void;
  called(operation: string, code: string, seconds: number): void;
}

export type RpcHandler<D extends RpcDefinition> = (input: z.output<D['input']>, identity: Identity) => Promise<z.input<D['output']>>;

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

const day = 24 * 60 * 60 * 1000;

/** How one call is made (`Bus.call`). */
export interface CallOptions {
  /** The call's deadline; the bus's `requestTimeoutMs` when not given. */
  timeoutMs?: number;
  /**
   * Whether a request answered "no responders" is sent again within the deadline (the default: a responder
   * may be reconnecting). False for an answer that is a nicety: a service that is not deployed fails the call
   * at once rather than at its deadline.
   */
  awaitResponder?: boolean;
}

/** A request's deadline where the bus is given none (`requestTimeoutMs`). */
export const defaultRequestTimeoutMs = 5_000;

/** The first wait before a request answered "no responders" is sent again; it doubles up to 16 times this. */
const noRespondersRetryMs = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Connection options for NATS_URL: one server, or several comma separated (the servers of a cluster, tried
 * in turn at the start and after losing one; the client also learns the others from whichever answers).
 * The client library ignores credentials in a URL, so they are taken out of it here:
 * `nats://user:password@host:4222` authenticates with user and password, `nats://token@host:4222` with a
 * token; with several servers the first credentials given are used for all. The server list keeps no
 * credentials (it shows in errors).
 */
export function natsServer(url: string): { servers: string | string[]; user?: string; pass?: string; token?: string } {
  const list = url
    .split(',')
    .map((one) => one.trim())
    .filter(Boolean);
  let credentials: { user?: string; pass?: string; token?: string } = {};
  const servers = list.map((one) => {
    let parsed: URL;
    try {
      parsed = new URL(one.includes('://') ? one : `nats://${one}`);
    } catch {
      return one;
    }
    if (!parsed.username) return one;
    const user = decodeURIComponent(parsed.username);
    const pass = decodeURIComponent(parsed.password);
    if (!credentials.user && !credentials.token) credentials = pass ? { user, pass } : { token: user };
    return `${parsed.protocol}//${parsed.host}`;
  });
  return { servers: servers.length === 1 ? (servers[0] as string) : servers, ...credentials };
}

/** A new event of a type, with its data as given; `id` fixed by the caller makes a retry the same event. */
export function newEvent<T extends EventType>(type: T, orgId: string, data: EventData<T>, id?: EventId): EventEnvelope<T> {
  // The mapped type does not see that `type` and `data` belong together for a generic `T`; the signature does.
  return { id: id ?? eventId(), type, created_at: new Date().toISOString(), org_id: orgId, data } as EventEnvelope<T>;
}

/**
 * The one NATS connection of a process: typed request/reply between services (queue groups, timeouts,
 * errors carried as `{code, message}`) and domain events on JetStream (durable consumers, ack after work).
 */
export class Bus {
  readonly connection: NatsConnection;
  private readonly js: JetStreamClient;
  private readonly logger: Logger;
  /** The deployable's name (`BusOptions.name`), on its spans. */
  private readonly name: string;
  private readonly namespace: string;
  private readonly secret: string;
  private readonly requestTimeoutMs: number;
  private readonly streamReplicas: number;
  private readonly subscriptions: Subscription[] = [];
  private readonly eventSchemas: EventSchemas;
  /** Where consumers put the events they cannot read; the operator's `dead-letters` commands read it. */
  readonly deadLetters: DeadLetters;
  private readonly consumers: Array<{ stop: () => Promise<void> }> = [];
  private streamReady: Promise<void> | undefined;
  /** Resolved while the connection is up; while it reconnects, a promise resolved by the reconnect. */
  private connected: Promise<void> = Promise.resolve();
  private rpcObserver: RpcObserver | undefined;

  private constructor(connection: NatsConnection, options: BusOptions) {
    this.connection = connection;
    this.js = jetstream(connection);
    this.logger = options.logger;
    this.name = options.name;
    this.namespace = options.namespace;
    this.secret = options.secret;
    this.requestTimeoutMs = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
    this.streamReplicas = options.streamReplicas ?? 1;
    this.eventSchemas = options.eventSchemas ?? eventDataSchemas;
    this.deadLetters = new DeadLetters(connection, { namespace: this.namespace, replicas: this.streamReplicas, logger: this.logger });
  }

  static async connect(options: BusOptions): Promise<Bus> {
    const deadline = Date.now() + (options.startupTimeoutMs ?? 15_000);
    const attempt = () =>
      connect({
        ...natsServer(options.url),
        name: options.name,
        // Keep reconnecting forever: a NATS restart must not need a pod restart (readiness reports it meanwhile).
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        timeout: 3_000,
      });
    let connection: NatsConnection;
    for (;;) {
      try {
        connection = await attempt();
        break;
      } catch (error) {
        // A process busy starting up (or a loaded machine) can miss one handshake's deadline; a refused
        // or unauthorised connection fails at once, and so does the last attempt before the deadline.
        if (!(error instanceof TimeoutError) || Date.now() + 3_000 > deadline) throw error;
      }
    }
    const bus = new Bus(connection, options);
    void bus.watchStatus();
    return bus;
  }

  private async watchStatus(): Promise<void> {
    let reconnected: (() => void) | undefined;
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        this.logger.warn({ nats: status.type }, `nats ${status.type}`);
      }
      if (status.type === 'disconnect' && !reconnected) {
        this.connected = new Promise((resolve) => {
          reconnected = resolve;
        });
      } else if (status.type === 'reconnect') {
        reconnected?.();
        reconnected = undefined;
      }
    }
    // Closed: a request still waiting for the reconnect goes on, and fails as the connection is closed.
    reconnected?.();
  }

  /** Reports every request this bus answers and makes from now on to `observer` (the app's metrics). */
  observeRpc(observer: RpcObserver): void {
    this.rpcObserver = observer;
  }

  /** A subject inside this bus's namespace. */
  subject(name: string): string {
    return this.namespace ? `${this.namespace}.${name}` : name;
  }

  get streamName(): string {
    return this.namespace ? `${eventsStreamName}_${this.namespace.toUpperCase()}` : eventsStreamName;
  }

  /**
   * Serves one operation with a queue group, so any number of replicas share the load. The operation's
   * declared scope is enforced here, before its input is read, as the REST services do for a route: a read
   * key is refused a write whoever calls (`forbidden_scope`).
   */
  serve<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>): void {
    const subscription = this.connection.subscribe(this.subject(definition.subject), {
      queue: this.subject(definition.subject),
      callback: (error, message) => {
        if (error) {
          this.logger.error({ err: error, subject: definition.subject }, 'subscription error');
          return;
        }
        void this.answerTraced(definition, handler, message);
      },
    });
    this.subscriptions.push(subscription);
  }

  /** Answers in a server span that continues the caller's trace (its `traceparent` header), when tracing is on. */
  private answerTraced<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>, message: Msg): Promise<void> {
    const parent = contextFromNats(message.headers);
    if (!parent) return this.answer(definition, handler, message);
    return inSpan(
      `process ${definition.subject}`,
      {
        kind: spanKind.server,
        parent,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': definition.subject,
          'messaging.operation.type': 'process',
          'voice.service': this.name,
        },
      },
      () => this.answer(definition, handler, message),
    );
  }

  private async answer<D extends RpcDefinition>(definition: D, handler: RpcHandler<D>, message: Msg): Promise<void> {
    const started = performance.now();
    let reply: RpcReply;
    try {
      try {
        verifyNatsRequest(message.headers?.get(natsSignatureHeader), message.subject, message.data, this.secret);
      } catch (error) {
        // The reason only (missing, expired, does not match): never the payload or the signature.
        this.logger.warn({ subject: definition.subject, reason: (error as Error).message }, 'unsigned rpc request refused');
        throw error;
      }
      const request = rpcRequestSchema.parse(JSON.parse(decoder.decode(message.data)));
      requireScope(request.identity, definition.scope);
      const nulPath = findNulCharacter(request.input);
      if (nulPath !== undefined) throw new ApiError('invalid_request', `${nulPath} contains a NUL character.`, { param: nulPath });
      const parsed = definition.input.safeParse(request.input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const param = issue?.path.join('.') || undefined;
        throw new ApiError('invalid_request', `${param ? `${param}: ` : ''}${issue?.message ?? 'invalid input'}`, param ? { param } : {});
      }
      // safeParse of a generic schema is typed loosely; the value is the schema's output by construction.
      const result = await handler(parsed.data as z.output<D['input']>, request.identity);
      reply = { ok: true, result: definition.output.parse(result) };
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.code === 'internal') this.logger.error({ err: error, subject: definition.subject }, 'rpc handler failed');
      else if (apiError.status >= 500) this.logger.warn({ reason: dependencyReason(error), subject: definition.subject }, apiError.message);
      reply = { ok: false, error: apiError.toWire() };
      markFailed(activeSpan(), apiError);
    }
    message.respond(encoder.encode(JSON.stringify(reply)));
    this.rpcObserver?.served(definition.subject, reply.ok ? 'ok' : reply.error.code, (performance.now() - started) / 1000);
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
    const started = performance.now();
    const called = inSpan(
      `send ${definition.subject}`,
      {
        kind: spanKind.client,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': definition.subject,
          'messaging.operation.type': 'send',
          'voice.service': this.name,
        },
      },
      () => this.callUntraced(definition, identity, input, options),
    );
    const observer = this.rpcObserver;
    if (!observer) return called;
    const seconds = () => (performance.now() - started) / 1000;
    return called.then(
      (result) => {
        observer.called(definition.subject, 'ok', seconds());
        return result;
      },
      (error: unknown) => {
        observer.called(definition.subject, error instanceof ApiError ? error.code : 'internal', seconds());
        throw error;
      },
    );
  }

  private async callUntraced<D extends RpcDefinition>(
    definition: D,
    identity: Identity,
    input: z.input<D['input']>,
    options: CallOptions,
  ): Promise<z.output<D['output']>> {
    const subject = this.subject(definition.subject);
    const payload = encoder.encode(JSON.stringify({ identity, input }));
    const deadline = Date.now() + (options.timeoutMs ?? this.requestTimeoutMs);
    let message: Msg;
    for (let attempt = 0; ; attempt++) {
      try {
        await withDeadline(this.connected, Math.max(0, deadline - Date.now()), 'NATS did not reconnect before the deadline');
        // Signed per attempt: a signature's age is checked by the responder.
        const signed = headers();
        signed.set(natsSignatureHeader, signNatsRequest(subject, payload, this.secret));
        injectIntoNats(signed);
        message = await this.connection.request(subject, payload, { timeout: Math.max(1, deadline - Date.now()), headers: signed });
        break;
      } catch (error) {
        const left = deadline - Date.now();
        if (error instanceof RequestError && error.isNoResponders() && left > 0 && options.awaitResponder !== false) {
          await sleep(Math.min(left, noRespondersRetryMs * 2 ** Math.min(attempt, 4)));
          continue;
        }
        const service = definition.subject.split('.')[1] ?? 'service';
        throw new ApiError('unavailable', `The ${service} service did not answer; retry shortly.`, { cause: error });
      }
    }
    const reply = rpcReplySchema.parse(JSON.parse(decoder.decode(message.data)));
    if (!reply.ok) throw ApiError.fromWire(reply.error);
    return definition.output.parse(reply.result) as z.output<D['output']>;
  }

  /**
   * Sends a message to every process listening on the subject (no queue group, not stored): for things
   * every replica must hear at once, such as "this key was revoked, drop it from your cache".
   */
  broadcast(subject: string, data: unknown): void {
    this.connection.publish(this.subject(subject), encoder.encode(JSON.stringify(data)));
  }

  /** Hears every broadcast on a subject, in this process. */
  listen(subject: string, handler: (data: unknown) => void): void {
    const subscription = this.connection.subscribe(this.subject(subject), {
      callback: (error, message) => {
        if (error) return;
        try {
          handler(JSON.parse(decoder.decode(message.data)));
        } catch (handlerError) {
          this.logger.warn({ err: handlerError, subject }, 'broadcast handler failed');
        }
      },
    });
    this.subscriptions.push(subscription);
  }

  /** Waits until the server has seen everything this connection sent so far. */
  /** Resolves once the connection is up: at once, or after the reconnect under way (for raw requests on `connection`). */
  untilConnected(): Promise<void> {
    return this.connected;
  }

  async flush(): Promise<void> {
    await this.connection.flush();
  }

  /**
   * Creates the events stream if it is missing, with `streamReplicas` copies; a stream that exists with
   * another number is changed to it (JetStream copies the data to the new replicas, or drops the extra
   * ones, while the stream keeps serving). Idempotent, and shared by every caller in this process.
   */
  ensureStream(): Promise<void> {
    this.streamReady ??= (async () => {
      const manager = await this.manager();
      const config = {
        name: this.streamName,
        subjects: [this.subject(`${eventSubjectPrefix}.>`)],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        // Seven days covers any consumer outage worth surviving; webhooks keep their own log beyond that.
        max_age: 7 * day * 1_000_000,
        // Deduplicates a retried publish of the same event id.
        duplicate_window: 2 * 60 * 1_000_000_000,
        num_replicas: this.streamReplicas,
      };
      let existing: StreamInfo | undefined;
      try {
        existing = await manager.streams.info(config.name);
      } catch (error) {
        if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
      }
      try {
        if (!existing) await manager.streams.add(config);
        else if (existing.config.num_replicas !== this.streamReplicas) {
          await manager.streams.update(config.name, { ...existing.config, num_replicas: this.streamReplicas });
        }
      } catch (error) {
        // Say which setting the server refused: "replicas > 1 not supported in non-clustered mode" alone
        // does not name JETSTREAM_REPLICAS.
        throw new Error(
          `NATS refused the events stream with ${this.streamReplicas} replicas (JETSTREAM_REPLICAS): ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    })().catch((error: unknown) => {
      this.streamReady = undefined;
      throw error;
    });
    return this.streamReady;
  }

  private managerPromise: Promise<JetStreamManager> | undefined;
  /** Shared once it exists; one that failed (NATS away at the first use) is asked for again next time. */
  private manager(): Promise<JetStreamManager> {
    this.managerPromise ??= jetstreamManager(this.connection).catch((error: unknown) => {
      this.managerPromise = undefined;
      throw error;
    });
    return this.managerPromise;
  }

  /** Publishes a domain event durably; resolves once JetStream has stored it. */
  async publish<T extends EventType>(
    type: T,
    orgId: string,
    data: EventData<T>,
    options: { id?: EventId; links?: Link[] } = {},
  ): Promise<EventEnvelope<T>> {
    const event = newEvent(type, orgId, data, options.id);
    await this.publishEnvelope(event, options.links ? { links: options.links } : {});
    return event;
  }

  /**
   * Publishes an event built earlier (an outbox row), with its id as JetStream's de-duplication id: publishing
   * the same event again within the stream's duplicate window stores nothing new.
   */
  async publishEnvelope<T extends EventType>(
    event: EventEnvelope<T>,
    /**
     * `traceContext`: the trace to publish in (an outbox row's); `links`: the spans of the work an event stands
     * for when it has several (a batch's requests), where one parent cannot say it.
     */
    options: { timeoutMs?: number; traceContext?: StoredTraceContext; links?: Link[] } = {},
  ): Promise<void> {
    await this.ensureStream();
    const subject = eventSubject(event.type);
    const publish = (traceHeaders?: ReturnType<typeof headers>) =>
      this.js.publish(this.subject(subject), encoder.encode(JSON.stringify(event)), {
        msgID: event.id,
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        ...(traceHeaders ? { headers: traceHeaders } : {}),
      });
    // A producer span in the writer's trace (an outbox row's stored context), else in the active one; its context
    // rides in the message's headers to every consumer.
    await inSpan(
      `publish ${subject}`,
      {
        kind: spanKind.producer,
        parent: contextFromStored(options.traceContext),
        ...(options.links ? { links: options.links } : {}),
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': subject,
          'messaging.operation.type': 'send',
          'messaging.message.id': event.id,
          'voice.service': this.name,
        },
      },
      async (span) => {
        if (!span) return publish();
        const traceHeaders = headers();
        injectIntoNats(traceHeaders);
        return publish(traceHeaders);
      },
    );
  }

  /**
   * Consumes events with a durable consumer: events published while this process was down are delivered
   * when it comes back. An event is acknowledged only after the handler resolves; a handler that throws
   * gets the event again after a back-off. The returned work stops consuming (and waits for the events in
   * hand) when closed; `drain` closes any still running.
   */
  async consume<T extends EventType = EventType>(options: ConsumeOptions<T>, handler: EventHandler<T>): Promise<BackgroundWork> {
    await this.ensureStream();
    const manager = await this.manager();
    const durable = this.namespace ? `${this.namespace}_${options.durable}` : options.durable;
    // One type is filtered by the server; several are filtered here, since servers before 2.10 (Debian's
    // 2.9 among them) take a single filter subject only.
    const types: readonly EventType[] = options.types ?? [];
    const config = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
      max_deliver: options.maxDeliver ?? -1,
      ...(types.length === 1 ? { filter_subject: this.subject(eventSubject(types[0] as EventType)) } : {}),
    };
    const wanted = types.length > 1 ? new Set<string>(types) : undefined;
    try {
      await manager.consumers.info(this.streamName, durable);
      await manager.consumers.update(this.streamName, durable, config);
    } catch {
      await manager.consumers.add(this.streamName, config);
    }
    const consumer = await this.js.consumers.get(this.streamName, durable);
    const concurrency = Math.max(1, options.concurrency ?? 1);
    // Pull requests that expire after 5 s (the library's default is 30 s, heartbeats at half of it): when a
    // cluster loses the server leading this consumer, or the one this connection used, the client notices
    // (two missed heartbeats, or the reconnect) and pulls again from the new leader, retrying every `expires`;
    // with the default, events waited up to half a minute after a server's loss.
    const messages = await consumer.consume({ max_messages: Math.max(64, concurrency * 2), expires: 5_000 });
    // An event whose last delivery timed out (no handler failure to dead-letter it on) is announced by JetStream.
    const advisories = config.max_deliver > 0 ? this.deadLetters.watchMaxDeliveries(this.streamName, durable, options.durable) : undefined;
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
    this.consumers.push({ stop });
    return { close: stop };
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
    const verdict = readEvent(message, { durable, schemas: this.eventSchemas, wanted });
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
      this.logger.warn({ err: error, event_id: event.id, type: event.type, durable, attempt }, 'event handler failed; will retry');
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
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': subject,
          'messaging.operation.type': 'process',
          'messaging.consumer.group.name': durable,
          'messaging.message.id': event.id,
          'voice.service': this.name,
        },
      },
      () => handler(event),
    );
  }

  /** Round trip to the server, bounded: the readiness probe's NATS check. */
  async ping(timeoutMs = 1_000): Promise<void> {
    if (this.connection.isClosed()) throw new Error('nats connection closed');
    await withDeadline(this.connection.rtt(), timeoutMs, 'nats did not answer');
  }

  /** Stops consuming, lets in-flight requests finish, then closes. */
  async drain(): Promise<void> {
    await Promise.allSettled(this.consumers.map((consumer) => consumer.stop()));
    if (!this.connection.isClosed()) await this.connection.drain();
  }

  /** Deletes this namespace's streams (events and dead letters); for tests that own a namespace. */
  async deleteStream(): Promise<void> {
    const manager = await this.manager();
    await manager.streams.delete(this.streamName).catch(() => false);
    await this.deadLetters.deleteStream();
  }
}
