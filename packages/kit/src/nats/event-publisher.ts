import { headers } from '@nats-io/nats-core';
import type { Link } from '@opentelemetry/api';
import { type EventData, type EventEnvelope, type EventType, eventSubject, livemodeOf } from '@voice/proto';
import { type EventId, eventId } from '../ids.js';
import { contextFromStored, injectIntoNats, inSpan, type StoredTraceContext, spanKind } from '../trace.js';
import type { BusConnection } from './connection.js';
import type { EventStream } from './event-stream.js';
import { jsonPayload } from './payload.js';

/** A new event of a type, with its data as given; `id` fixed by the caller makes a retry the same event. */
export function newEvent<T extends EventType>(type: T, orgId: string, data: EventData<T>, id?: EventId): EventEnvelope<T> {
  // The mapped type does not see that `type` and `data` belong together for a generic `T`; the signature does.
  const envelope = { id: id ?? eventId(), type, created_at: new Date().toISOString(), org_id: orgId, livemode: livemodeOf(orgId), data };
  return envelope as EventEnvelope<T>;
}

/** Stores domain events in the events stream, each in a producer span whose context rides to every consumer. */
export class EventPublisher {
  constructor(
    private readonly bus: BusConnection,
    private readonly stream: EventStream,
  ) {}

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

  async publishEnvelope<T extends EventType>(
    event: EventEnvelope<T>,
    options: { timeoutMs?: number; traceContext?: StoredTraceContext; links?: Link[] } = {},
  ): Promise<void> {
    await this.stream.ensure();
    const subject = eventSubject(event.type);
    const publish = (traceHeaders?: ReturnType<typeof headers>) =>
      this.stream.client.publish(this.bus.subject(subject), jsonPayload(event), {
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
        attributes: this.bus.messagingAttributes(subject, 'send', { 'messaging.message.id': event.id }),
      },
      async (span) => {
        if (!span) return publish();
        const traceHeaders = headers();
        injectIntoNats(traceHeaders);
        return publish(traceHeaders);
      },
    );
  }
}
