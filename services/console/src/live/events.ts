import { type EventEnvelope, type EventType, eventEnvelopeSchema, eventRecordId, livemodeOf } from '@voice/proto';
import type { Role } from '../domain/roles.js';

/**
 * What a page is told of a platform event: which kind of record changed, which one, its new status and
 * when. Pages re-read the record itself from the server (static/live.js), so nothing else travels: no data
 * of the record (a call's numbers or transcript, an approval's arguments), no organization id, no secret.
 */
export interface LiveEvent {
  /** The platform event's id (`evt_…`), also the SSE `id:` line. */
  id: string;
  /** The event type, e.g. `call.ringing`, `approval.requested`. */
  type: EventType;
  /** The record the event is about: `call_…`, `sms_…`, `approval_…`, `lead_…`… */
  resource_id: string | null;
  /** The record's status after the event, when it has one. */
  status: string | null;
  /** When the event happened (ISO 8601). */
  at: string;
}

/**
 * Event types that never reach a page: `api.called` (the audit feed: batches of requests, read on the audit
 * log page), `org.plan_changed` (internal) and `webhook.test`, which never crosses NATS. Every other type is
 * about one record, whose id proto's `eventRecordId` finds (`call_id`, `sms_id`… by type, else `id`).
 */
const hiddenTypes: ReadonlySet<EventType> = new Set<EventType>(['api.called', 'org.plan_changed', 'webhook.test']);

/**
 * Whether a role may see an event of its organization. Every role may: members read everything of their
 * organization that the console shows (they only cannot change it), so the one filter today is the
 * organization, applied by the hub. A type that one day must be hidden from members is refused here.
 */
export function roleMaySee(_role: Role, _event: LiveEvent): boolean {
  return true;
}

const text = (value: unknown) => (typeof value === 'string' ? value : null);

/**
 * The live event of a message on `evt.>` with its organization, or undefined for anything the console does
 * not show or cannot read (a malformed message is ignored: this is a view, the durable consumers judge events).
 * The organization id says the mode (a test twin's is `org_test_…`), and the hub delivers by it; an event whose
 * `livemode` says otherwise is dropped rather than shown in a mode it may not belong to.
 */
export function liveEventOf(message: unknown): { orgId: string; event: LiveEvent } | undefined {
  const parsed = eventEnvelopeSchema.safeParse(message);
  if (!parsed.success) return undefined;
  const envelope = parsed.data as EventEnvelope;
  if (hiddenTypes.has(envelope.type)) return undefined;
  if (envelope.livemode !== undefined && envelope.livemode !== livemodeOf(envelope.org_id)) return undefined;
  const data = envelope.data as Record<string, unknown>;
  return {
    orgId: envelope.org_id,
    event: {
      id: envelope.id,
      type: envelope.type,
      resource_id: eventRecordId({ type: envelope.type, data }),
      status: text(data.status),
      at: envelope.created_at,
    },
  };
}
