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

const dnc = (): EventData<'dnc.added'> => ({
  dnc_id: 'dnc_sample00000001',
  id: 'dnc_sample00000001',
  object: 'dnc_entry',
  phone: '+14155550100',
  channel: 'all',
  reason: null,
  source: 'api',
  created_by: null,
  created_at: at,
  updated_at: at,
});

const enrollment = (): EventData<'enrollment.started'> => ({
  id: 'enr_sample00000001',
  object: 'enrollment',
  sequence_id: 'seq_sample00000001',
  lead_id: 'lead_sample00000001',
  status: 'active',
  steps: [],
  current_step: 0,
  next_step_at: null,
  stopped_reason: null,
  history: [],
  started_at: at,
  completed_at: null,
  stopped_at: null,
  created_at: at,
  updated_at: at,
});

const approval = (): EventData<'approval.requested'> => ({
  approval_id: 'apr_sample00000001',
  id: 'apr_sample00000001',
  object: 'approval',
  tool: 'service_delete_lead',
  arguments: { lead_id: 'lead_sample00000001' },
  arguments_digest: '0'.repeat(64),
  summary: 'Delete lead lead_sample00000001 (Ada Lovelace)',
  status: 'pending',
  requested_by: 'key_sample00000001',
  bound_user_id: null,
  expires_at: at,
  resolved_at: null,
  resolved_by: null,
  resolved_via: null,
  error: null,
  deliveries: [],
  created_at: at,
  updated_at: at,
});

/** A builder of each type a service publishes (all but the internal ones), so a test can send every one. */
const samples = {
  'call.queued': () => ({ ...call(), status: 'queued', outcome: null, ended_at: null }),
  'call.ringing': () => ({ ...call(), status: 'ringing', outcome: null, ended_at: null }),
  'call.started': () => ({ ...call(), status: 'in_progress', outcome: null, ended_at: null }),
  'call.completed': call,
  'call.failed': () => ({ ...call(), status: 'failed', outcome: null }),
  'call.canceled': () => ({ ...call(), status: 'canceled', outcome: null }),
  'sms.sent': sms,
  'sms.delivered': () => ({ ...sms(), status: 'delivered', delivered_at: at }),
  'sms.failed': () => ({ ...sms(), status: 'failed', error: { code: 'unreachable', message: 'The number is not reachable' } }),
  'sms.received': () => ({ ...sms(), direction: 'inbound', status: 'received' }),
  'dnc.added': dnc,
  'dnc.removed': dnc,
  'lead.created': lead,
  'lead.updated': () => ({ ...lead(), changed: ['name'] }),
  'lead.qualified': () => ({ ...lead(), status: 'qualified', qualified_at: at, call_id: null }),
  'lead.deleted': () => ({ id: 'lead_sample00000001', object: 'lead' }),
  'enrollment.started': enrollment,
  'enrollment.completed': () => ({ ...enrollment(), status: 'completed', completed_at: at }),
  'enrollment.stopped': () => ({ ...enrollment(), status: 'stopped', stopped_reason: 'manual', stopped_at: at }),
  'invoice.sent': invoice,
  'project.delivered': () => ({
    id: 'prj_sample00000001',
    object: 'project',
    lead_id: 'lead_sample00000001',
    workspace_id: null,
    name: 'Website refresh',
    status: 'delivered',
    due_date: null,
    deliverables: [],
    notes: null,
    delivered_at: at,
    created_at: at,
    updated_at: at,
  }),
  'approval.requested': approval,
  'approval.resolved': () => ({
    ...approval(),
    status: 'rejected',
    resolved_at: at,
    resolved_by: 'console:Ada (usr_sample00000001)',
    resolved_via: 'console',
  }),
  'recall.brand_scored': () => ({ brand: 'Acme', url: 'https://acme.example', score: 72, verdict: 'known', partial: false, providers: [] }),
} satisfies { [T in EventType]?: () => EventData<T> };

export type SampleEventType = keyof typeof samples;

/** Every type with a sample: every type a service publishes, which webhooks deliver. */
export const sampleEventTypes = Object.keys(samples) as SampleEventType[];

/** A valid `data` of the type, with `overrides` on top (say the record's id). */
export function sampleEventData<T extends SampleEventType>(type: T, overrides: Partial<EventData<T>> = {}): EventData<T> {
  // The table holds a builder of each type's data; TypeScript does not tie `samples[T]` to `EventData<T>`.
  return { ...samples[type](), ...overrides } as EventData<T>;
}
