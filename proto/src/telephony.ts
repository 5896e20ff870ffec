// Records, request schemas and NATS operations of the telephony service: calls, SMS and the do-not-call list.
import { z } from 'zod';
import { currencySchema, deletedSchema, e164Schema, idempotencyKeySchema, metadataSchema, timestampSchema } from './common.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc, nameOperations } from './rpc.js';

export const callDirections = ['inbound', 'outbound'] as const;
export const callStatuses = ['queued', 'ringing', 'in_progress', 'completed', 'failed', 'canceled', 'no_answer', 'busy'] as const;
export const callOutcomes = ['qualified_lead', 'booked', 'message_taken', 'not_interested', 'voicemail', 'wrong_number', 'spam'] as const;
export const callSources = ['api', 'mcp', 'inbound', 'sequence'] as const;
/** Who may ask for an outbound call or message: inbound traffic is recorded, never requested. */
export const requestSources = ['api', 'mcp', 'sequence'] as const;

/** Statuses after which a call never changes again. */
export const finalCallStatuses = ['completed', 'failed', 'canceled', 'no_answer', 'busy'] as const satisfies readonly CallStatus[];

export type CallDirection = (typeof callDirections)[number];
export type CallStatus = (typeof callStatuses)[number];
export type CallOutcome = (typeof callOutcomes)[number];

export const moneySchema = z
  .object({
    amount: z.number().int().describe('Amount in minor units (cents)'),
    currency: currencySchema,
  })
  .meta({ id: 'Money' });

const workspaceIdSchema = idSchema('workspace');
const leadIdSchema = idSchema('lead');

// ---------------------------------------------------------------------------------------------------------
// Calls

export const callListItemSchema = z
  .object({
    id: idSchema('call'),
    object: z.literal('call'),
    workspace_id: z.string().nullable(),
    direction: z.enum(callDirections),
    from: e164Schema,
    to: e164Schema,
    lead_id: z.string().nullable(),
    status: z.enum(callStatuses),
    outcome: z.enum(callOutcomes).nullable(),
    end_reason: z.string().nullable().describe('Why the call ended, e.g. `hangup`, `carrier_error`, `canceled`, `dnc_listed`'),
    source: z.enum(callSources),
    duration_seconds: z.number().int().nonnegative().nullable(),
    cost: moneySchema.nullable(),
    metadata: metadataSchema,
    created_at: timestampSchema,
    started_at: timestampSchema.nullable().describe('When the callee answered'),
    ended_at: timestampSchema.nullable(),
    updated_at: timestampSchema,
  })
  .meta({ id: 'CallListItem' });

/** The full call adds what is too large for lists: the transcript, the summary and the recording. */
export const callSchema = callListItemSchema
  .extend({
    recording_url: z.string().nullable(),
    transcript: z.string().nullable(),
    summary: z.string().nullable(),
  })
  .meta({ id: 'Call' });

export type Call = z.infer<typeof callSchema>;
export type CallListItem = z.infer<typeof callListItemSchema>;

const createdRangeSchema = {
  created_after: timestampSchema.optional().describe('Only items created at or after this time'),
  created_before: timestampSchema.optional().describe('Only items created before this time'),
};

export const listCallsQuerySchema = listQuerySchema.extend({
  direction: z.enum(callDirections).optional(),
  outcome: z.enum(callOutcomes).optional(),
  status: z.enum(callStatuses).optional(),
  lead_id: leadIdSchema.optional(),
  ...createdRangeSchema,
});
export type ListCallsQuery = z.infer<typeof listCallsQuerySchema>;

export const callPageSchema = pageSchema(callListItemSchema).meta({ id: 'CallPage' });

/** The REST body of `POST /api/v1/phone/calls`. */
export const queueCallBodySchema = z
  .object({
    to: e164Schema.describe('Number to call, E.164'),
    from: e164Schema.optional().describe('Caller id, E.164; the platform number when omitted'),
    workspace_id: workspaceIdSchema.optional(),
    lead_id: leadIdSchema.optional(),
    metadata: metadataSchema.optional(),
  })
  .strict()
  .meta({ id: 'QueueCallRequest' });
export type QueueCallBody = z.infer<typeof queueCallBodySchema>;

/** The NATS input of queueCall: the REST body plus who asks and the idempotency key (the header on REST). */
export const queueCallInputSchema = queueCallBodySchema.extend({
  source: z.enum(requestSources).default('api'),
  idempotency_key: idempotencyKeySchema.optional(),
});
export type QueueCallInput = z.infer<typeof queueCallInputSchema>;

export const callStatsQuerySchema = z.object({
  ...createdRangeSchema,
  workspace_id: workspaceIdSchema.optional(),
  lead_id: leadIdSchema.optional(),
});
export type CallStatsQuery = z.infer<typeof callStatsQuerySchema>;

export const callStatsSchema = z
  .object({
    object: z.literal('call_stats'),
    created_after: timestampSchema.describe('Start of the period (default: 30 days ago)'),
    created_before: timestampSchema.describe('End of the period (default: now)'),
    total: z.number().int().nonnegative(),
    by_direction: z.object({ inbound: z.number().int(), outbound: z.number().int() }),
    by_outcome: z.object({
      ...Object.fromEntries(callOutcomes.map((outcome) => [outcome, z.number().int()])),
      none: z.number().int().describe('Calls without an outcome (yet)'),
    } as Record<CallOutcome | 'none', z.ZodNumber>),
    by_status: z.object(Object.fromEntries(callStatuses.map((status) => [status, z.number().int()])) as Record<CallStatus, z.ZodNumber>),
    total_duration_seconds: z.number().int().nonnegative(),
  })
  .meta({ id: 'CallStats' });
export type CallStats = z.infer<typeof callStatsSchema>;

// ---------------------------------------------------------------------------------------------------------
// SMS

export const smsDirections = callDirections;
export const smsStatuses = [
  'queued',
  'sending',
  'sent',
  'delivered',
  'undelivered',
  'failed',
  'received',
  'blocked_dnc',
  'canceled',
] as const;
export const smsSources = ['api', 'mcp', 'inbound', 'sequence'] as const;
export type SmsStatus = (typeof smsStatuses)[number];

/** Longest body accepted: what carriers concatenate at most (10 segments of GSM-7). */
export const smsMaxBodyLength = 1600;

export const smsSchema = z
  .object({
    id: idSchema('sms'),
    object: z.literal('sms'),
    workspace_id: z.string().nullable(),
    direction: z.enum(smsDirections),
    from: e164Schema,
    to: e164Schema,
    body: z.string(),
    segments: z.number().int().positive().describe('Billed message parts (GSM-7: 160/153 characters, UCS-2: 70/67)'),
    status: z.enum(smsStatuses),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    lead_id: z.string().nullable(),
    source: z.enum(smsSources),
    cost: moneySchema.nullable(),
    metadata: metadataSchema,
    created_at: timestampSchema,
    sent_at: timestampSchema.nullable(),
    delivered_at: timestampSchema.nullable(),
    updated_at: timestampSchema,
  })
  .meta({ id: 'Sms' });
export type Sms = z.infer<typeof smsSchema>;

export const smsPageSchema = pageSchema(smsSchema).meta({ id: 'SmsPage' });

export const listSmsQuerySchema = listQuerySchema.extend({
  direction: z.enum(smsDirections).optional(),
  status: z.enum(smsStatuses).optional(),
  lead_id: leadIdSchema.optional(),
  ...createdRangeSchema,
});
export type ListSmsQuery = z.infer<typeof listSmsQuerySchema>;

export const sendSmsBodySchema = z
  .object({
    to: e164Schema,
    body: z.string().trim().min(1).max(smsMaxBodyLength),
    from: e164Schema.optional().describe('Sender number, E.164; the platform number when omitted'),
    workspace_id: workspaceIdSchema.optional(),
    lead_id: leadIdSchema.optional(),
    metadata: metadataSchema.optional(),
  })
  .strict()
  .meta({ id: 'SendSmsRequest' });
export type SendSmsBody = z.infer<typeof sendSmsBodySchema>;

export const sendSmsInputSchema = sendSmsBodySchema.extend({
  source: z.enum(requestSources).default('api'),
  idempotency_key: idempotencyKeySchema.optional(),
});
export type SendSmsInput = z.infer<typeof sendSmsInputSchema>;

// ---------------------------------------------------------------------------------------------------------
// Do-not-call list

export const dncChannels = ['voice', 'sms', 'all'] as const;
export const dncSources = ['manual', 'api', 'mcp', 'sms_stop', 'import'] as const;
export type DncChannel = (typeof dncChannels)[number];

export const dncEntrySchema = z
  .object({
    id: idSchema('dnc'),
    object: z.literal('dnc_entry'),
    phone: e164Schema,
    channel: z.enum(dncChannels).describe('`all` blocks calls and messages'),
    reason: z.string().nullable(),
    source: z.enum(dncSources),
    created_by: z.string().nullable().describe('The API key that added it, or null for automatic entries'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'DncEntry' });
export type DncEntry = z.infer<typeof dncEntrySchema>;

export const dncPageSchema = pageSchema(dncEntrySchema).meta({ id: 'DncPage' });

export const listDncQuerySchema = listQuerySchema.extend({
  phone: e164Schema.optional(),
  channel: z.enum(dncChannels).optional(),
  source: z.enum(dncSources).optional(),
});
export type ListDncQuery = z.infer<typeof listDncQuerySchema>;

export const addDncBodySchema = z
  .object({
    phone: e164Schema,
    channel: z.enum(dncChannels).default('all'),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict()
  .meta({ id: 'AddDncRequest' });
export type AddDncBody = z.infer<typeof addDncBodySchema>;

export const addDncInputSchema = addDncBodySchema.extend({
  source: z.enum(['api', 'mcp', 'manual', 'import']).default('api'),
});
export type AddDncInput = z.infer<typeof addDncInputSchema>;

export const deletedDncSchema = deletedSchema('dnc_entry', idSchema('dnc')).meta({ id: 'DeletedDncEntry' });

export const checkDncQuerySchema = z.object({ phone: e164Schema });

export const dncCheckSchema = z
  .object({
    phone: e164Schema,
    listed: z.boolean(),
    channels: z.array(z.enum(dncChannels)).describe('Channels of the entries that list this number'),
    blocks: z.object({ voice: z.boolean(), sms: z.boolean() }).describe('Whether a call or an SMS to it would be refused'),
    entries: z.array(dncEntrySchema),
  })
  .meta({ id: 'DncCheck' });
export type DncCheck = z.infer<typeof dncCheckSchema>;

// ---------------------------------------------------------------------------------------------------------
// NATS operations: everything the REST API does, for the MCP service and the leads service's sequences.

const byCallId = z.object({ id: idSchema('call') });

export const telephonyRpc = nameOperations({
  listCalls: defineRpc('svc.telephony.calls.list', listCallsQuerySchema, callPageSchema, 'read'),
  getCall: defineRpc('svc.telephony.calls.get', byCallId, callSchema, 'read'),
  /** Queues an outbound call; a do-not-call number is `dnc_blocked` (422). */
  queueCall: defineRpc('svc.telephony.calls.queue', queueCallInputSchema, callSchema, 'read-write'),
  /** Cancels a call that is still queued; any other status is `conflict` (409). */
  cancelCall: defineRpc('svc.telephony.calls.cancel', byCallId, callSchema, 'read-write'),
  callStats: defineRpc('svc.telephony.calls.stats', callStatsQuerySchema, callStatsSchema, 'read'),
  listSms: defineRpc('svc.telephony.sms.list', listSmsQuerySchema, smsPageSchema, 'read'),
  getSms: defineRpc('svc.telephony.sms.get', z.object({ id: idSchema('sms') }), smsSchema, 'read'),
  /** Sends an SMS; a do-not-call number is `dnc_blocked` (422). */
  sendSms: defineRpc('svc.telephony.sms.send', sendSmsInputSchema, smsSchema, 'read-write'),
  listDnc: defineRpc('svc.telephony.dnc.list', listDncQuerySchema, dncPageSchema, 'read'),
  /** Adds a number; adding one that is already listed for that channel returns the existing entry. */
  addDnc: defineRpc('svc.telephony.dnc.add', addDncInputSchema, dncEntrySchema, 'read-write'),
  removeDnc: defineRpc('svc.telephony.dnc.remove', z.object({ id: idSchema('dnc') }), deletedDncSchema, 'read-write', { approval: true }),
  checkDnc: defineRpc('svc.telephony.dnc.check', checkDncQuerySchema, dncCheckSchema, 'read'),
});

/**
 * The `data` of call events (`call.queued`, `call.ringing`, `call.started`, `call.completed`, `call.failed`,
 * `call.canceled`): the call as listed, plus `call_id` so consumers need not know the record's shape.
 */
export const callEventDataSchema = callListItemSchema.extend({ call_id: idSchema('call') });

/** The `data` of SMS events (`sms.sent`, `sms.delivered`, `sms.failed`, `sms.received`). */
export const smsEventDataSchema = smsSchema.extend({ sms_id: idSchema('sms') });

/** The `data` of `dnc.added` and `dnc.removed`. */
export const dncEventDataSchema = dncEntrySchema.extend({ dnc_id: idSchema('dnc') });
