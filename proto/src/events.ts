import { z } from 'zod';
import { apiCallBatchSchema } from './audit.js';
import { planSchema } from './identity.js';
import { idSchema } from './ids.js';
import {
  enrollmentSchema,
  invoiceLineSchema,
  invoiceSchema,
  leadDeletedEventDataSchema,
  leadQualifiedEventDataSchema,
  leadSchema,
  leadUpdatedEventDataSchema,
  projectDeliverableSchema,
  projectSchema,
  sequenceStepSchema,
} from './leads.js';
import { approvalEventDataSchema } from './mcp.js';
import { brandScoredEventDataSchema } from './recall.js';
import { callEventDataSchema, dncEventDataSchema, smsEventDataSchema } from './telephony.js';

/** Every domain event type. Each is published on JetStream as `evt.<type>` (e.g. `evt.call.completed`). */
export const eventTypes = [
  'call.queued',
  'call.started',
  'call.completed',
  'call.failed',
  'call.canceled',
  'call.ringing',
  'sms.delivered',
  'sms.failed',
  'sms.sent',
  'sms.received',
  'dnc.added',
  'dnc.removed',
  'lead.created',
  'lead.updated',
  'lead.qualified',
  'lead.deleted',
  'enrollment.started',
  'enrollment.completed',
  'enrollment.stopped',
  'invoice.sent',
  'project.delivered',
  'approval.requested',
  'approval.resolved',
  'recall.brand_scored',
  'webhook.test',
  'org.plan_changed',
  'api.called',
] as const;

export const eventTypeSchema = z.enum(eventTypes);
export type EventType = z.infer<typeof eventTypeSchema>;

/**
 * Events that are internal plumbing, not part of the public webhook catalogue: the audit feed, and plan
 * changes (which turn features such as webhooks on or off in the services).
 */
export const internalEventTypes = ['api.called', 'org.plan_changed'] as const satisfies readonly EventType[];

export const publicEventTypes = eventTypes.filter((type) => !(internalEventTypes as readonly EventType[]).includes(type));

/** The `data` of `webhook.test`. */
export const webhookTestEventDataSchema = z.object({ endpoint_id: idSchema('webhook'), message: z.string() });

/**
 * Records whose nested objects a request takes closed (`.strict()`: a sequence's steps, an invoice's lines, a
 * project's deliverables), as events carry them: open. A consumer accepts fields it does not know at every
 * depth, since a newer publisher may add one (ARCHITECTURE.md, "Upgrades without loss"), and
 * `proto/test/event-schemas.test.ts` refuses any event data schema with a closed object.
 */
const [callStepSchema, smsStepSchema, waitStepSchema] = sequenceStepSchema.options;
const enrollmentEventDataSchema = enrollmentSchema.extend({
  steps: z
    .array(z.discriminatedUnion('type', [callStepSchema.strip(), smsStepSchema.strip(), waitStepSchema.strip()]))
    .describe('The sequence’s steps when the lead was enrolled; later edits do not change them'),
});
const invoiceEventDataSchema = invoiceSchema.extend({ lines: z.array(invoiceLineSchema.strip()) });
const projectEventDataSchema = projectSchema.extend({ deliverables: z.array(projectDeliverableSchema.strip()) });

/**
 * What each event type carries in `data`, exactly as its publisher builds it. `Bus.publish`, the outbox and
 * `Bus.consume` are typed by this map, so a payload its consumers do not expect does not compile, and
 * consumers check `data` against it before their handler runs (fields a schema does not name are accepted;
 * data that does not match goes to the dead-letter stream). Each type's schema is published as JSON Schema
 * in `proto/event-schemas/` and changes only by adding optional fields; any other change is a new type
 * (`proto/src/event-schemas.ts`).
 */
export const eventDataSchemas = {
  'call.queued': callEventDataSchema,
  'call.started': callEventDataSchema,
  'call.completed': callEventDataSchema,
  'call.failed': callEventDataSchema,
  'call.canceled': callEventDataSchema,
  'call.ringing': callEventDataSchema,
  'sms.delivered': smsEventDataSchema,
  'sms.failed': smsEventDataSchema,
  'sms.sent': smsEventDataSchema,
  'sms.received': smsEventDataSchema,
  'dnc.added': dncEventDataSchema,
  'dnc.removed': dncEventDataSchema,
  'lead.created': leadSchema,
  'lead.updated': leadUpdatedEventDataSchema,
  'lead.qualified': leadQualifiedEventDataSchema,
  'lead.deleted': leadDeletedEventDataSchema,
  'enrollment.started': enrollmentEventDataSchema,
  'enrollment.completed': enrollmentEventDataSchema,
  'enrollment.stopped': enrollmentEventDataSchema,
  'invoice.sent': invoiceEventDataSchema,
  'project.delivered': projectEventDataSchema,
  'approval.requested': approvalEventDataSchema,
  'approval.resolved': approvalEventDataSchema,
  'recall.brand_scored': brandScoredEventDataSchema,
  'webhook.test': webhookTestEventDataSchema,
  'org.plan_changed': z.object({ plan: planSchema }),
  'api.called': apiCallBatchSchema,
} satisfies { [T in EventType]: z.ZodType<Record<string, unknown>> };

/**
 * The `data` of one event type as it crosses the wire. Publishers build it and consumers receive it as sent
 * (checked, not rewritten: webhook bodies keep the publisher's bytes), hence the schema's input type.
 */
export type EventData<T extends EventType> = z.input<(typeof eventDataSchemas)[T]>;

/** The envelope of every event, on JetStream and in webhook deliveries alike (Standard Webhooks body). */
export const eventEnvelopeSchema = z.object({
  id: z.string(),
  type: eventTypeSchema,
  created_at: z.string(),
  org_id: z.string(),
  /**
   * False for an event of a test twin (mode.ts): test events go to the twin's endpoints only. Always set by
   * publishers; absent only on events published before test mode, which consumers read as live (`readEvent`).
   */
  livemode: z.boolean().optional(),
  data: z.record(z.string(), z.unknown()),
});

/**
 * An event of one of the types `T`, its `data` typed by the type: narrowing on `type` narrows `data`.
 * `EventEnvelope` alone is any event.
 */
export type EventEnvelope<T extends EventType = EventType> = {
  [K in T]: { id: string; type: K; created_at: string; org_id: string; livemode: boolean; data: EventData<K> };
}[T];

/**
 * Where each event type keeps the id of the record it is about (`call_…`, `sms_…`…), so a record's events
 * can be found by that id (the webhooks service's event log, read on a call's console page).
 */
const recordIdFields: Partial<Record<EventType, string>> = {
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
  'approval.requested': 'approval_id',
  'approval.resolved': 'approval_id',
};

/** The id of the record an event is about, when its type names one and its data carries it. */
export function eventRecordId(event: { type: EventType; data: Record<string, unknown> }): string | null {
  const field = recordIdFields[event.type] ?? 'id';
  const value = event.data[field];
  return typeof value === 'string' ? value : null;
}

export const eventsStreamName = 'EVENTS';
export const eventSubjectPrefix = 'evt';

export function eventSubject(type: EventType): string {
  return `${eventSubjectPrefix}.${type}`;
}
