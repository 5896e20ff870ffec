import type { EventData, EventType } from '@voice/proto';

/**
 * Event data as the services publish it, for tests that publish events themselves: `Bus.publish` takes
 * only data its consumers accept, so a test's event has to be a real one too.
 */

const at = '2026-11-25T12:00:00.000Z';

const call = (): EventData<'call.completed'> => ({
  call_id: 'call_sample00000001',
  id: 'call_sample00000001',
  object: 'call',
  workspace_id: null,
  direction: 'outbound',
  from: '+14155550000',
  to: '+14155550100',
  lead_id: null,
  status: 'completed',
  outcome: 'booked',
  end_reason: 'hangup',
  source: 'api',
  duration_seconds: 42,
  cost: null,
  metadata: {},
  created_at: at,
  started_at: at,
  ended_at: at,
  updated_at: at,
});

const sms = (): EventData<'sms.sent'> => ({
  sms_id: 'sms_sample00000001',
  id: 'sms_sample00000001',
  object: 'sms',
  workspace_id: null,
  direction: 'outbound',
  from: '+14155550000',
  to: '+14155550100',
  body: 'Hello',
  segments: 1,
  status: 'sent',
  error: null,
  lead_id: null,
  source: 'api',
  cost: null,
  metadata: {},
  created_at: at,
  sent_at: at,
  delivered_at: null,
  updated_at: at,
});

const lead = (): EventData<'lead.created'> => ({
  id: 'lead_sample00000001',
  object: 'lead',
  workspace_id: null,
  name: 'Ada Lovelace',
  phone: '+14155550100',
  email: null,
  company: null,
  status: 'new',
  qualified_at: null,
  source: 'api',
  tags: [],
  owner: null,
  custom_fields: {},
  last_contacted_at: null,
  next_action: null,
  next_action_at: null,
  created_at: at,
  updated_at: at,
});

const invoice = (): EventData<'invoice.sent'> => ({
  id: 'inv_sample00000001',
  object: 'invoice',
  lead_id: 'lead_sample00000001',
  workspace_id: null,
  status: 'sent',
  currency: 'USD',
  lines: [{ description: 'Consulting hour', quantity: 1, unit_amount: 4950, tax_rate_bps: 0, subtotal: 4950, tax: 0, total: 4950 }],
  subtotal: 4950,
  tax: 0,
  total: 4950,
  due_date: null,
  memo: null,
  metadata: {},
  sent_at: at,
  paid_at: null,
  voided_at: null,
  created_at: at,
  updated_at: at,
});

const samples = {
  'call.completed': call,
  'sms.sent': sms,
  'sms.received': () => ({ ...sms(), direction: 'inbound', status: 'received' }),
  'lead.created': lead,
  'lead.updated': () => ({ ...lead(), changed: ['name'] }),
  'invoice.sent': invoice,
} satisfies { [T in EventType]?: () => EventData<T> };

export type SampleEventType = keyof typeof samples;

/** A valid `data` of the type, with `overrides` on top (say the record's id). */
export function sampleEventData<T extends SampleEventType>(type: T, overrides: Partial<EventData<T>> = {}): EventData<T> {
  // The table holds a builder of each type's data; TypeScript does not tie `samples[T]` to `EventData<T>`.
  return { ...samples[type](), ...overrides } as EventData<T>;
}
