import { type EventEnvelope, type EventType, eventEnvelopeSchema } from '@voice/proto';
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
 * Where each event type the console shows keeps its record's id. Types not listed never reach a page:
 * `api.called` (the audit feed: batches of requests, read on the audit log page) and `org.plan_changed`
 * (internal), and `webhook.test`, which never crosses NATS.
 */
const resourceIdField: Partial<Record<EventType, string>> = {
  'call.queued': 'call_id',
  'call.ringing': 'call_id',
  'call.started': 'call_id',
  'call.completed': 'call_id',
  'call.failed': 'call_id',
  'call.canceled': 'call_id',
  'sms.sent': 'sms_id',
  'sms.delivered': 'sms_id',
  'sms.failed': 'sms_id',
  'sms.received': 'sms_id',
  'dnc.added': 'dnc_id',
  'dnc.removed': 'dnc_id',
  'lead.created': 'id',
  'lead.updated': 'id',
  'lead.qualified': 'id',
  'lead.deleted': 'id',
  'enrollment.started': 'id',
  'enrollment.completed': 'id',
  'enrollment.stopped': 'id',
  'invoice.sent': 'id',
  'project.delivered': 'id',
  'approval.requested': 'approval_id',
  'approval.resolved': 'approval_id',
  'recall.brand_scored': 'id',
};

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
 */
export function liveEventOf(message: unknown): { orgId: string; event: LiveEvent } | undefined {
  const parsed = eventEnvelopeSchema.safeParse(message);
  if (!parsed.success) return undefined;
  const envelope = parsed.data as EventEnvelope;
  const field = resourceIdField[envelope.type];
  if (!field) return undefined;
  const data = envelope.data as Record<string, unknown>;
  return {
    orgId: envelope.org_id,
    event: { id: envelope.id, type: envelope.type, resource_id: text(data[field]), status: text(data.status), at: envelope.created_at },
  };
}
