// One realistic example of the `data` of every event type an endpoint can subscribe to: what the webhooks
// service's test helper (`POST /api/v1/test_helpers/webhooks/trigger`) sends, and what documentation can show.
// Every example parses against its type's schema (`eventDataSchemas`; proto/test/event-examples.test.ts).
// The phone numbers are test mode's magic numbers (+1 500 555 01xx), which no real phone answers; the ids have
// their records' prefixes, and the story is one: a call to a lead that qualifies it, a follow-up SMS, a reply.
import type { EventData } from './events.js';
import { type testPhoneNumbers, testStopReplyNumber } from './telephony.js';
import type { subscribableEventTypes } from './webhooks.js';

export type SubscribableEventType = (typeof subscribableEventTypes)[number];

/** The number the examples' organization calls and texts from (the 555-01xx range is reserved for fiction). */
const platformNumber = '+14155550142';
const qualifyingNumber = '+15005550101' satisfies keyof typeof testPhoneNumbers;

const ids = {
  call: 'call_7dQm2VxK9pLr4TzA',
  sms: 'sms_3FhW8nYc1JqB6sKe',
  reply: 'sms_9LpT2rXv5MwD8cHa',
  lead: 'lead_5XkR8bNq3WvC7mJd',
  dnc: 'dnc_2HsV6pLw9QxF4nTb',
  sequence: 'seq_8WcN3kTf6RyH1vQz',
  enrollment: 'enr_4MgJ7dLs2XbP9kWe',
  invoice: 'inv_6TrB1qVh8NcK3wZy',
  project: 'prj_1YdF5mQx7LsG2rVc',
  approval: 'apr_9KwE4tNb6HpZ3xLm',
  key: 'key_2RnC8vYq5DjT7mFs',
  user: 'usr_7BxH3kWp9LqV2nGd',
  workspace: 'ws_4QsM6fTz1KcR8wYb',
} as const;

/** One afternoon: the call at 15:00, answered at 15:00:08, done at 15:03:02; the SMS right after. */
const at = {
  leadCreated: '2026-11-27T14:58:41.000Z',
  queued: '2026-11-27T15:00:00.000Z',
  answered: '2026-11-27T15:00:08.000Z',
  ended: '2026-11-27T15:03:02.000Z',
  smsSent: '2026-11-27T15:03:10.000Z',
  smsDelivered: '2026-11-27T15:03:12.000Z',
  replied: '2026-11-27T15:07:45.000Z',
  nextStep: '2026-11-29T15:03:10.000Z',
  expires: '2026-11-28T15:10:00.000Z',
} as const;

const call = {
  call_id: ids.call,
  id: ids.call,
  object: 'call',
  workspace_id: ids.workspace,
  direction: 'outbound',
  from: platformNumber,
  to: qualifyingNumber,
  lead_id: ids.lead,
  status: 'completed',
  outcome: 'qualified_lead',
  end_reason: 'hangup',
  source: 'api',
  duration_seconds: 174,
  cost: { amount: 27, currency: 'USD' },
  metadata: { campaign: 'winter-promo' },
  created_at: at.queued,
  started_at: at.answered,
  ended_at: at.ended,
  updated_at: at.ended,
} satisfies EventData<'call.completed'>;

/** A call that has not been answered (yet): no outcome, duration or cost. */
const unansweredCall = { ...call, outcome: null, end_reason: null, duration_seconds: null, cost: null, started_at: null, ended_at: null };

const sms = {
  sms_id: ids.sms,
  id: ids.sms,
  object: 'sms',
  workspace_id: ids.workspace,
  direction: 'outbound',
  from: platformNumber,
  to: qualifyingNumber,
  body: 'Thanks for your time, Maya! Here is the link to book your demo: https://example.com/book',
  segments: 1,
  status: 'sent',
  error: null,
  lead_id: ids.lead,
  source: 'sequence',
  cost: { amount: 79, currency: 'USD' },
  metadata: { enrollment_id: ids.enrollment },
  created_at: at.smsSent,
  sent_at: at.smsSent,
  delivered_at: null,
  updated_at: at.smsSent,
} satisfies EventData<'sms.sent'>;

const lead = {
  id: ids.lead,
  object: 'lead',
  workspace_id: ids.workspace,
  name: 'Maya Chen',
  phone: qualifyingNumber,
  email: 'maya.chen@example.com',
  company: 'Northwind Dental',
  status: 'new',
  qualified_at: null,
  source: 'web',
  tags: ['demo-request'],
  owner: 'sam@example.com',
  custom_fields: { locations: 3 },
  last_contacted_at: null,
  next_action: 'Call to qualify',
  next_action_at: at.queued,
  created_at: at.leadCreated,
  updated_at: at.leadCreated,
} satisfies EventData<'lead.created'>;

const qualifiedLead = {
  ...lead,
  status: 'qualified',
  qualified_at: at.ended,
  last_contacted_at: at.ended,
  next_action: 'Send the demo booking link',
  next_action_at: at.smsSent,
  updated_at: at.ended,
} satisfies EventData<'lead.created'>;

const dnc = {
  dnc_id: ids.dnc,
  id: ids.dnc,
  object: 'dnc_entry',
  phone: testStopReplyNumber,
  channel: 'all',
  reason: 'Replied STOP',
  source: 'sms_stop',
  created_by: null,
  created_at: at.replied,
  updated_at: at.replied,
} satisfies EventData<'dnc.added'>;

const enrollment = {
  id: ids.enrollment,
  object: 'enrollment',
  sequence_id: ids.sequence,
  lead_id: ids.lead,
  status: 'active',
  steps: [
    { type: 'call', delay_seconds: 0 },
    { type: 'sms', delay_seconds: 60, body: 'Thanks for your time, {{first_name}}! Book your demo: https://example.com/book' },
    { type: 'wait', delay_seconds: 172_800 },
    { type: 'call', delay_seconds: 0 },
  ],
  current_step: 2,
  next_step_at: at.nextStep,
  stopped_reason: null,
  history: [
    { step: 0, type: 'call', outcome: 'done', reason: null, call_id: ids.call, sms_id: null, at: at.ended },
    { step: 1, type: 'sms', outcome: 'done', reason: null, call_id: null, sms_id: ids.sms, at: at.smsSent },
  ],
  started_at: at.queued,
  completed_at: null,
  stopped_at: null,
  created_at: at.queued,
  updated_at: at.smsSent,
} satisfies EventData<'enrollment.started'>;

const approval = {
  approval_id: ids.approval,
  id: ids.approval,
  object: 'approval',
  tool: 'service_send_invoice',
  arguments: { invoice_id: ids.invoice },
  arguments_digest: 'c1f0a4a6d93f3b7e2a51d8a5b0e9d4c7f2b6e1a38d5c9f7e4b2a6d1c8e3f5a90',
  summary: `Send invoice ${ids.invoice} (USD 1,183.00) to Maya Chen at Northwind Dental`,
  status: 'pending',
  requested_by: ids.key,
  bound_user_id: null,
  expires_at: at.expires,
  resolved_at: null,
  resolved_by: null,
  resolved_via: null,
  error: null,
  deliveries: [],
  created_at: at.replied,
  updated_at: at.replied,
} satisfies EventData<'approval.requested'>;

/**
 * Each subscribable type's example `data`. Adding an event type without an example does not compile, so the
 * test helper can send, and documentation show, every type there is.
 */
export const eventExamples = {
  'call.queued': { ...unansweredCall, status: 'queued', updated_at: at.queued },
  'call.ringing': { ...unansweredCall, status: 'ringing', updated_at: '2026-11-27T15:00:02.000Z' },
  'call.started': { ...unansweredCall, status: 'in_progress', started_at: at.answered, updated_at: at.answered },
  'call.completed': call,
  'call.failed': {
    ...unansweredCall,
    to: '+15005550106',
    status: 'failed',
    end_reason: 'carrier_error',
    ended_at: '2026-11-27T15:00:03.000Z',
    updated_at: '2026-11-27T15:00:03.000Z',
  },
  'call.canceled': { ...unansweredCall, status: 'canceled', end_reason: 'canceled', updated_at: '2026-11-27T15:00:01.000Z' },
  'sms.sent': sms,
  'sms.delivered': { ...sms, status: 'delivered', delivered_at: at.smsDelivered, updated_at: at.smsDelivered },
  'sms.failed': {
    ...sms,
    status: 'failed',
    sent_at: null,
    cost: null,
    error: { code: 'unreachable', message: 'The carrier could not reach the number' },
  },
  'sms.received': {
    ...sms,
    sms_id: ids.reply,
    id: ids.reply,
    direction: 'inbound',
    from: qualifyingNumber,
    to: platformNumber,
    body: 'Booked for Thursday at 3pm, see you then!',
    status: 'received',
    source: 'inbound',
    cost: null,
    metadata: {},
    created_at: at.replied,
    sent_at: null,
    delivered_at: at.replied,
    updated_at: at.replied,
  },
  'dnc.added': dnc,
  'dnc.removed': { ...dnc, updated_at: '2026-11-27T16:20:00.000Z' },
  'lead.created': lead,
  'lead.updated': { ...lead, next_action: 'Call back after 2pm', updated_at: '2026-11-27T14:59:30.000Z', changed: ['next_action'] },
  'lead.qualified': { ...qualifiedLead, call_id: ids.call },
  'lead.deleted': { id: ids.lead, object: 'lead' },
  'enrollment.started': { ...enrollment, current_step: 0, next_step_at: at.queued, history: [], updated_at: at.queued },
  'enrollment.completed': {
    ...enrollment,
    status: 'completed',
    current_step: 4,
    next_step_at: null,
    completed_at: '2026-11-29T15:06:40.000Z',
    updated_at: '2026-11-29T15:06:40.000Z',
  },
  'enrollment.stopped': {
    ...enrollment,
    status: 'stopped',
    next_step_at: null,
    stopped_reason: 'lead_replied',
    stopped_at: at.replied,
    updated_at: at.replied,
  },
  'invoice.sent': {
    id: ids.invoice,
    object: 'invoice',
    lead_id: ids.lead,
    workspace_id: ids.workspace,
    status: 'sent',
    currency: 'USD',
    lines: [
      { description: 'Voice agent setup', quantity: 1, unit_amount: 75_000, tax_rate_bps: 0, subtotal: 75_000, tax: 0, total: 75_000 },
      {
        description: 'Onboarding call (hours)',
        quantity: 2.5,
        unit_amount: 16_000,
        tax_rate_bps: 825,
        subtotal: 40_000,
        tax: 3_300,
        total: 43_300,
      },
    ],
    subtotal: 115_000,
    tax: 3_300,
    total: 118_300,
    due_date: '2026-12-27',
    memo: 'Thank you for your business.',
    metadata: { po_number: 'PO-4471' },
    sent_at: '2026-11-27T16:05:00.000Z',
    paid_at: null,
    voided_at: null,
    created_at: '2026-11-27T16:01:12.000Z',
    updated_at: '2026-11-27T16:05:00.000Z',
  },
  'project.delivered': {
    id: ids.project,
    object: 'project',
    lead_id: ids.lead,
    workspace_id: ids.workspace,
    name: 'Northwind Dental voice agent',
    status: 'delivered',
    due_date: '2026-12-15',
    deliverables: [
      { name: 'Call script', url: 'https://example.com/northwind/script.pdf', done: true },
      { name: 'Booking integration', url: null, done: true },
    ],
    notes: 'Delivered ahead of schedule.',
    delivered_at: '2026-12-10T11:30:00.000Z',
    created_at: '2026-11-27T16:10:00.000Z',
    updated_at: '2026-12-10T11:30:00.000Z',
  },
  'approval.requested': approval,
  'approval.resolved': {
    ...approval,
    status: 'executed',
    bound_user_id: ids.user,
    resolved_at: '2026-11-27T15:12:30.000Z',
    resolved_by: `console:Sam Rivera (${ids.user})`,
    resolved_via: 'console',
    updated_at: '2026-11-27T15:12:31.000Z',
  },
  'recall.brand_scored': {
    brand: 'Northwind Dental',
    url: 'https://northwind-dental.example/',
    score: 64,
    verdict: 'known',
    partial: false,
    providers: [
      { provider: 'openai', model: 'gpt-5.4', status: 'ok', signal_score: 71 },
      { provider: 'anthropic', model: 'claude-sonnet-4-6', status: 'ok', signal_score: 57 },
    ],
  },
} satisfies { [T in SubscribableEventType]: EventData<T> };

/** The example `data` of a type, typed by it. */
export function eventExample<T extends SubscribableEventType>(type: T): EventData<T> {
  // The table holds each type's data; TypeScript does not tie `eventExamples[T]` to `EventData<T>` for a generic T.
  return eventExamples[type] as EventData<T>;
}
