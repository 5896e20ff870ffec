import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StoredMsg,
  type StreamInfo,
} from '@nats-io/jetstream';
import { type MsgHdrs, type NatsConnection, headers as natsHeaders, type Subscription } from '@nats-io/nats-core';
import { type EventEnvelope, eventEnvelopeSchema, livemodeOf } from '@voice/proto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from './errors.js';

/**
 * Dead letters: the events a consumer could not read, kept instead of dropped (ARCHITECTURE.md, "Upgrades
 * without loss"). A consumer that gets an event it can never handle (not JSON, not an event, a type this
 * version does not know, data that does not match its type's schema, or one that failed on every delivery
 * its consumer allows) stores it here, with the reason, before it terminates it: published first, then
 * terminated, so a crash in between duplicates a dead letter (de-duplicated by its id) and never loses one.
 *
 * One JetStream stream, `DEAD_LETTERS` (`dead.>`, file storage, kept until replayed or deleted), subject
 * `dead.<consumer>.<type>`; the message is the event's bytes as they were, the headers say why and where from.
 * The operator lists, inspects, replays and deletes them with `npm run -s admin -- dead-letters …`; a replay
 * publishes the event again on its original subject for that one consumer (`Voice-Replay-For`), then
 * deletes the dead letter.
 */

export const deadLettersStreamName = 'DEAD_LETTERS';
export const deadLetterSubjectPrefix = 'dead';

/** Why an event was dead-lettered. */
export const deadLetterReasons = ['malformed', 'unknown_type', 'data_mismatch', 'max_deliveries'] as const;
export type DeadLetterReason = (typeof deadLetterReasons)[number];

/** The headers a dead letter carries beside the event's own. */
export const deadLetterHeaders = {
  reason: 'Voice-Dead-Reason',
  /** What did not match, or the last error; never the event's data. */
  detail: 'Voice-Dead-Detail',
  /** The durable consumer's name, without the namespace. */
  consumer: 'Voice-Dead-Consumer',
  /** The subject the event was published on (the replay's subject). */
  subject: 'Voice-Dead-Subject',
  stream: 'Voice-Dead-Stream',
  sequence: 'Voice-Dead-Sequence',
  deliveries: 'Voice-Dead-Deliveries',
  /** When it was dead-lettered, ISO 8601. */
  time: 'Voice-Dead-Time',
  eventId: 'Voice-Dead-Event-Id',
  eventType: 'Voice-Dead-Event-Type',
} as const;

/**
 * On a replayed event: the one consumer it is for. Every other consumer acknowledges it unread, so a replay
 * never runs a handler that already had the event (nor an order-sensitive one, such as a plan change, twice).
 */
export const replayForHeader = 'Voice-Replay-For';

const deadHeaderNames = new Set<string>(Object.values(deadLetterHeaders).map((name) => name.toLowerCase()));
/** Headers of the original not carried over: JetStream's own (its de-duplication id above all) and ours. */
const carried = (name: string) => {
  const lower = name.toLowerCase();
  return !lower.startsWith('nats-') && !deadHeaderNames.has(lower) && lower !== replayForHeader.toLowerCase();
};

/** A header value: one line, bounded. */
function headerValue(text: string, max = 1_000): string {
  const line = text.replace(/[\r\n]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The event types a process reads and their `data` schemas: proto's `eventDataSchemas`, the version it was built with. */
export type EventSchemas = Readonly<Record<string, z.ZodType>>;

/** The envelope with any type: one this version does not know is a dead letter of its own reason, not malformed. */
const anyTypeEnvelopeSchema = eventEnvelopeSchema.extend({ type: z.string().min(1) });

/** What a consumer does with a message: handle the event, acknowledge it unread, or dead-letter it. */
export type EventVerdict =
  | { kind: 'event'; event: EventEnvelope }
  | { kind: 'skip' }
  | { kind: 'dead'; reason: DeadLetterReason; detail: string; eventId?: string; eventType?: string };

function issuesText(error: z.ZodError): string {
  return JSON.stringify(error.issues.slice(0, 3).map(({ path, message }) => ({ path: path.join('.'), problem: message })));
}

/**
 * Reads an event as a consumer does. `wanted`: the types a consumer filters in the client (others are
 * acknowledged unread); a type this version does not know is dead-lettered even then, since the newer
 * version of the same consumer may take it. Fields the schemas do not name are accepted.
 */
export function readEvent(
  message: { data: Uint8Array; headers?: MsgHdrs | undefined },
  options: { durable: string; schemas: EventSchemas; wanted?: ReadonlySet<string> | undefined },
): EventVerdict {
  const replayFor = message.headers?.get(replayForHeader);
  if (replayFor && replayFor !== options.durable) return { kind: 'skip' };
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(message.data));
  } catch {
    // Not the parser's message: it quotes the bytes, and the detail goes to the log.
    return { kind: 'dead', reason: 'malformed', detail: 'not JSON' };
  }
  const envelope = anyTypeEnvelopeSchema.safeParse(body);
  if (!envelope.success) return { kind: 'dead', reason: 'malformed', detail: `not an event envelope: ${issuesText(envelope.error)}` };
  const { id: eventId, type: eventType } = envelope.data;
  const schema = Object.hasOwn(options.schemas, eventType) ? options.schemas[eventType] : undefined;
  if (!schema) {
    return {
      kind: 'dead',
      reason: 'unknown_type',
      detail: `this version does not know the event type ${eventType}; replay it once the consumer is upgraded`,
      eventId,
      eventType,
    };
  }
  if (options.wanted && !options.wanted.has(eventType)) return { kind: 'skip' };
  const checked = schema.safeParse(envelope.data.data);
  if (!checked.success) return { kind: 'dead', reason: 'data_mismatch', detail: issuesText(checked.error), eventId, eventType };
  // The event as sent, not the parsed copy: a webhook body keeps the publisher's bytes (key order included).
  // One published before test mode has no `livemode`; its organization's id tells it (always live then).
  const event = body as EventEnvelope;
  if (envelope.data.livemode === undefined) event.livemode = livemodeOf(event.org_id);
  return { kind: 'event', event };
}

/** What the operator sees of a dead letter in a list. */
export interface DeadLetterSummary {
  seq: number;
  consumer: string;
  reason: string;
  detail: string;
  event_id: string | null;
  type: string | null;
  subject: string;
  stream: string;
  stream_seq: number | null;
  deliveries: number | null;
  dead_at: string;
}

/** A dead letter in full: the event as it was (parsed when it is JSON, else its text) and its other headers. */
export interface DeadLetter extends DeadLetterSummary {
  event: unknown;
  headers: Record<string, string>;
}

export interface ReplayResult {
  seq: number;
  consumer: string;
  event_id: string | null;
  type: string | null;
  subject: string;
  /** Where the event went: its new sequence in the events stream (`duplicate` when a repeat replay within the window). */
  replayed_as: { stream: string; seq: number; duplicate: boolean };
}

export interface DeadLetterInput {
  /** The event's bytes and headers as delivered. */
  data: Uint8Array;
  headers?: MsgHdrs | undefined;
  subject: string;
  stream: string;
  streamSequence: number;
  /** The durable consumer's name without the namespace. */
  consumer: string;
  deliveries: number;
  reason: DeadLetterReason;
  detail: string;
  eventId?: string | undefined;
  eventType?: string | undefined;
}

export interface DeadLettersOptions {
  /** NATS_NAMESPACE: prefixes the stream's name and subjects, as the bus's. */
  namespace: string;
  /** JETSTREAM_REPLICAS: copies of the stream, as of the events stream. */
  replicas?: number;
  logger?: Logger;
}

/** The dead-letter stream of one namespace: what consumers write, and what the operator's commands read. */
export class DeadLetters {
  private readonly js: JetStreamClient;
  private readonly namespace: string;
  private readonly replicas: number;
  private readonly logger: Logger | undefined;
  private streamReady: Promise<void> | undefined;
  private managerPromise: Promise<JetStreamManager> | undefined;

  constructor(
    private readonly connection: NatsConnection,
    options: DeadLettersOptions,
  ) {
    this.js = jetstream(connection);
    this.namespace = options.namespace;
    this.replicas = options.replicas ?? 1;
    this.logger = options.logger;
  }

  get streamName(): string {
    return this.namespace ? `${deadLettersStreamName}_${this.namespace.toUpperCase()}` : deadLettersStreamName;
  }

  /** `dead.<consumer>.<type>` (in the namespace); `dead.<consumer>.>` without a type, for a filter. */
  subject(consumer: string, type?: string): string {
    const name = `${deadLetterSubjectPrefix}.${consumer}.${type ?? '>'}`;
    return this.namespace ? `${this.namespace}.${name}` : name;
  }

  private manager(): Promise<JetStreamManager> {
    this.managerPromise ??= jetstreamManager(this.connection).catch((error: unknown) => {
      this.managerPromise = undefined;
      throw error;
    });
    return this.managerPromise;
  }

  private async info(): Promise<StreamInfo | undefined> {
    try {
      return await (await this.manager()).streams.info(this.streamName);
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return undefined;
      throw error;
    }
  }

  /**
   * Creates the stream when it is missing (made at the first dead letter, so a namespace without any has
   * none). No age or size limit: a dead letter stays until it is replayed or deleted.
   */
  ensureStream(): Promise<void> {
    this.streamReady ??= (async () => {
      const existing = await this.info();
      const manager = await this.manager();
      if (!existing) {
        await manager.streams.add({
          name: this.streamName,
          subjects: [this.namespace ? `${this.namespace}.${deadLetterSubjectPrefix}.>` : `${deadLetterSubjectPrefix}.>`],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          // Dead-lettering the same delivery twice (a crash between the publish and the terminate) stores one.
          duplicate_window: 2 * 60 * 1_000_000_000,
          num_replicas: this.replicas,
        });
      } else if (existing.config.num_replicas !== this.replicas) {
        await manager.streams.update(this.streamName, { ...existing.config, num_replicas: this.replicas });
      }
    })().catch((error: unknown) => {
      this.streamReady = undefined;
      throw error;
    });
    return this.streamReady;
  }

  /**
   * Stores a dead letter and resolves once JetStream has it (only then may the consumer terminate the
   * event). Its id is the consumer and the event's place in its stream, so storing it again stores nothing.
   */
  async add(input: DeadLetterInput): Promise<number> {
    await this.ensureStream();
    const out = natsHeaders();
    for (const name of input.headers?.keys() ?? []) {
      if (!carried(name)) continue;
      for (const value of input.headers?.values(name) ?? []) out.append(name, value);
    }
    out.set(deadLetterHeaders.reason, input.reason);
    out.set(deadLetterHeaders.detail, headerValue(input.detail) || '-');
    out.set(deadLetterHeaders.consumer, input.consumer);
    out.set(deadLetterHeaders.subject, input.subject);
    out.set(deadLetterHeaders.stream, input.stream);
    out.set(deadLetterHeaders.sequence, String(input.streamSequence));
    out.set(deadLetterHeaders.deliveries, String(input.deliveries));
    out.set(deadLetterHeaders.time, new Date().toISOString());
    if (input.eventId) out.set(deadLetterHeaders.eventId, headerValue(input.eventId, 200));
    if (input.eventType) out.set(deadLetterHeaders.eventType, headerValue(input.eventType, 200));
    const type = this.subjectType(input.subject);
    const ack = await this.js.publish(this.subject(input.consumer, type), input.data, {
      msgID: `${input.consumer}:${input.stream}:${input.streamSequence}`,
      headers: out,
    });
    return ack.seq;
  }

  /** The event type as the original subject names it (`<namespace>.evt.<type>`): always a valid subject's tokens. */
  private subjectType(subject: string): string {
    const prefix = this.namespace ? `${this.namespace}.evt.` : 'evt.';
    return subject.startsWith(prefix) && subject.length > prefix.length ? subject.slice(prefix.length) : 'unknown';
  }

  /**
   * What a consumer does with an event it cannot read, or that failed on its last allowed delivery: stores
   * it as a dead letter, then terminates it. In that order, so a crash in between delivers it again (and
   * stores it once). A dead letter NATS does not take leaves the event unacknowledged, to come back.
   */
  async deadLetter(
    message: JsMsg,
    consumer: string,
    why: { reason: DeadLetterReason; detail: string; eventId?: string | undefined; eventType?: string | undefined },
  ): Promise<void> {
    const fields = { event_id: why.eventId, type: why.eventType, durable: consumer, reason: why.reason, detail: why.detail };
    try {
      const seq = await this.add({
        data: message.data,
        headers: message.headers,
        subject: message.subject,
        stream: message.info.stream,
        streamSequence: message.info.streamSequence,
        consumer,
        deliveries: message.info.deliveryCount,
        ...why,
      });
      // The reason and what did not match, never the data itself.
      this.logger?.error({ ...fields, dead_letter: seq }, 'event dead-lettered');
    } catch (error) {
      this.logger?.warn({ err: error, ...fields }, 'dead-lettering an event failed; it will be delivered again');
      message.nak(Math.min(30_000, 250 * 2 ** message.info.deliveryCount));
      return;
    }
    // No reason string: NATS before 2.10 takes only a bare `+TERM`, and ignores one with a reason (the event
    // would come back after every ack wait). The dead letter holds the reason.
    message.term();
  }

  /**
   * Dead-letters the events a consumer gave up on without a handler's last failure (the last delivery's
   * handler hung past the ack wait, or its process stopped): JetStream announces each in an advisory, which
   * one subscriber of the consumer (a queue group) turns into a dead letter, read back from the stream.
   */
  watchMaxDeliveries(stream: string, consumerName: string, consumer: string): Subscription {
    return this.connection.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumerName}`, {
      queue: `${consumerName}-dead-letters`,
      callback: (error, message) => {
        if (error) return;
        void (async () => {
          const advisory = z
            .object({ stream_seq: z.number().int().positive(), deliveries: z.number().int().nonnegative() })
            .parse(message.json());
          const stored = await (await this.manager()).streams.getMessage(stream, { seq: advisory.stream_seq });
          if (!stored) {
            this.logger?.error({ durable: consumer, stream_seq: advisory.stream_seq }, 'event past its deliveries is gone from the stream');
            return;
          }
          const seq = await this.add({
            data: stored.data,
            headers: stored.header,
            subject: stored.subject,
            stream,
            streamSequence: advisory.stream_seq,
            consumer,
            deliveries: advisory.deliveries,
            reason: 'max_deliveries',
            detail: `not acknowledged after ${advisory.deliveries} deliveries (the handler ran past the ack wait, or its process stopped)`,
            ...eventIdentity(stored.data),
          });
          this.logger?.error(
            { durable: consumer, stream_seq: advisory.stream_seq, dead_letter: seq, reason: 'max_deliveries' },
            'event dead-lettered',
          );
        })().catch((failure: unknown) => {
          this.logger?.error({ err: failure, durable: consumer }, 'dead-lettering an event past its deliveries failed');
        });
      },
    });
  }

  /** Dead letters in order, oldest first: all, or one consumer's; at most `limit`, from `from` (a sequence) on. */
  async list(options: { consumer?: string; limit?: number; from?: number } = {}): Promise<DeadLetterSummary[]> {
    const letters: DeadLetterSummary[] = [];
    const limit = options.limit ?? 100;
    const info = await this.info();
    if (!info || info.state.messages === 0) return letters;
    const manager = await this.manager();
    const filter = this.subject(options.consumer ?? '*');
    for (let seq = Math.max(options.from ?? 1, info.state.first_seq); letters.length < limit && seq <= info.state.last_seq; ) {
      // STREAM.MSG.GET's `next_by_subj` (NATS 2.9 on): the first message at or after `seq` on the filter, skipping deleted ones.
      const stored = await manager.streams.getMessage(this.streamName, { seq, next_by_subj: filter } as unknown as { seq: number });
      if (!stored) break;
      letters.push(summaryOf(stored));
      seq = stored.seq + 1;
    }
    return letters;
  }

  /** One dead letter in full; `not_found` when there is none at that sequence (replayed, deleted, never made). */
  async get(seq: number): Promise<DeadLetter> {
    return fullOf(await this.stored(seq));
  }

  private async stored(seq: number): Promise<StoredMsg> {
    const info = await this.info();
    const stored = info ? await (await this.manager()).streams.getMessage(this.streamName, { seq }) : null;
    if (!stored?.header.get(deadLetterHeaders.subject)) throw new ApiError('not_found', `No dead letter ${seq}.`, { param: 'seq' });
    return stored;
  }

  /**
   * Publishes the event again on its original subject, for its consumer only, then deletes the dead letter.
   * Safe to run again: a replay interrupted before the delete publishes under the same id (JetStream drops the
   * repeat within two minutes) and consumers dedupe on the event's id beyond that.
   */
  async replay(seq: number): Promise<ReplayResult> {
    const stored = await this.stored(seq);
    const letter = summaryOf(stored);
    const out = natsHeaders();
    for (const name of stored.header.keys()) {
      if (!carried(name)) continue;
      for (const value of stored.header.values(name)) out.append(name, value);
    }
    out.set(replayForHeader, letter.consumer);
    const ack = await this.js.publish(letter.subject, stored.data, {
      msgID: `${letter.event_id ?? 'event'}:replay:${this.streamName}:${seq}`,
      headers: out,
    });
    await (await this.manager()).streams.deleteMessage(this.streamName, seq, false);
    return {
      seq,
      consumer: letter.consumer,
      event_id: letter.event_id,
      type: letter.type,
      subject: letter.subject,
      replayed_as: { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate },
    };
  }

  /** Replays every dead letter (or one consumer's), oldest first. */
  async replayAll(options: { consumer?: string } = {}): Promise<ReplayResult[]> {
    const results: ReplayResult[] = [];
    // Listed first, then replayed: an event that is dead-lettered again meanwhile waits for the next run.
    const letters: DeadLetterSummary[] = [];
    for (let page = await this.list({ ...options, limit: 500 }); page.length > 0; ) {
      letters.push(...page);
      page = await this.list({ ...options, limit: 500, from: (page.at(-1)?.seq ?? 0) + 1 });
    }
    for (const letter of letters) results.push(await this.replay(letter.seq));
    return results;
  }

  /** Deletes a dead letter for good: an event nobody will ever read (the operator's decision, after `show`). */
  async delete(seq: number): Promise<DeadLetterSummary> {
    const letter = summaryOf(await this.stored(seq));
    await (await this.manager()).streams.deleteMessage(this.streamName, seq, false);
    return letter;
  }

  /** Deletes the stream; for tests that own a namespace. */
  async deleteStream(): Promise<void> {
    this.streamReady = undefined;
    await (await this.manager()).streams.delete(this.streamName).catch(() => false);
  }
}

/** The id and type an event's bytes name, as far as they are an event. */
function eventIdentity(data: Uint8Array): { eventId?: string; eventType?: string } {
  try {
    const body = JSON.parse(new TextDecoder().decode(data)) as { id?: unknown; type?: unknown };
    return {
      ...(typeof body.id === 'string' ? { eventId: body.id } : {}),
      ...(typeof body.type === 'string' ? { eventType: body.type } : {}),
    };
  } catch {
    return {};
  }
}

function numberOf(value: string): number | null {
  const parsed = Number(value);
  return value !== '' && Number.isSafeInteger(parsed) ? parsed : null;
}

function summaryOf(stored: StoredMsg): DeadLetterSummary {
  const header = (name: string) => stored.header.get(name);
  return {
    seq: stored.seq,
    consumer: header(deadLetterHeaders.consumer),
    reason: header(deadLetterHeaders.reason),
    detail: header(deadLetterHeaders.detail),
    event_id: header(deadLetterHeaders.eventId) || null,
    type: header(deadLetterHeaders.eventType) || null,
    subject: header(deadLetterHeaders.subject),
    stream: header(deadLetterHeaders.stream),
    stream_seq: numberOf(header(deadLetterHeaders.sequence)),
    deliveries: numberOf(header(deadLetterHeaders.deliveries)),
    dead_at: header(deadLetterHeaders.time) || stored.time.toISOString(),
  };
}

function fullOf(stored: StoredMsg): DeadLetter {
  const text = new TextDecoder().decode(stored.data);
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    event = text;
  }
  const other: Record<string, string> = {};
  for (const name of stored.header.keys()) if (carried(name)) other[name] = stored.header.get(name);
  return { ...summaryOf(stored), event, headers: other };
}
