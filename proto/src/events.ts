import { z } from 'zod';

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
export const internalEventTypes: readonly EventType[] = ['api.called', 'org.plan_changed'];

export const publicEventTypes = eventTypes.filter((type) => !internalEventTypes.includes(type));

/** The envelope of every event, on JetStream and in webhook deliveries alike (Standard Webhooks body). */
export const eventEnvelopeSchema = z.object({
  id: z.string(),
  type: eventTypeSchema,
  created_at: z.string(),
  org_id: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

export const eventsStreamName = 'EVENTS';
export const eventSubjectPrefix = 'evt';

export function eventSubject(type: EventType): string {
  return `${eventSubjectPrefix}.${type}`;
}
