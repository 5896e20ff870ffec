// Records, request schemas and NATS operations of the telephony service: calls, SMS and the do-not-call list.
import { z } from 'zod';
import { currencySchema, deletedSchema, e164Schema, idempotencyKeySchema, metadataSchema, timestampSchema } from './common.js';
import { idSchema } from './ids.js';
import { twoWayListQuerySchema, twoWayPageSchema } from './pagination.js';
import { defineRpc, nameOperations } from './rpc.js';

export const callDirections = ['inbound', 'outbound'] as const;
export const callStatuses = ['queued', 'ringing', 'in_progress', 'completed', 'failed', 'canceled', 'no_answer', 'busy'] as const;
export const callOutcomes = ['qualified_lead', 'booked', 'message_taken', 'not_interested', 'voicemail', 'wrong_number', 'spam'] as const;
export const callSources = ['api', 'mcp', 'inbound', 'sequence'] as const;
/** Who may ask for an outbound call or message: inbound traffic is recorded, never requested. */
export const requestSources = ['api', 'mcp', 'sequence'] as const;

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

/** Statuses after which a call never changes again. */
export const finalCallStatuses = ['completed', 'failed', 'canceled', 'no_answer', 'busy'] as const satisfies readonly CallStatus[];

export type CallDirection = (typeof callDirections)[number];
export type CallStatus = (typeof callStatuses)[number];
export type CallOutcome = (typeof callOutcomes)[number];
export type SmsStatus = (typeof smsStatuses)[number];

export const moneySchema = z
  .object({
    amount: z.number().int().describe('Amount in minor units (cents)'),
    currency: currencySchema,
  })
  .meta({ id: 'Money' });

/**
 * `livemode` of a call or message: false for a test twin's (mode.ts), which the sandbox simulator played out
 * whatever this deployment's carrier: nobody was called or written to, and its `cost` is simulated, never billed.
 */
const livemodeSchema = z
  .boolean()
  .describe('False in test mode: simulated by the sandbox, never placed or sent; its cost is simulated, not billed');

const workspaceIdSchema = idSchema('workspace');
const leadIdSchema = idSchema('lead');

/**
 * A search for part of a phone number: its digits, 3 to 15 (fewer would match nearly everything, and a
 * trigram index needs 3), with an optional leading `+`.
 */
const numberSearchSchema = z
  .string()
  .regex(/^\+?[0-9]{3,15}$/, 'must be 3 to 15 digits of a phone number, e.g. 5550123')
  .describe('Digits in the from or to number');

// ---------------------------------------------------------------------------------------------------------
// Calls

export const callListItemSchema = z
  .object({
    id: idSchema('call'),
    object: z.literal('call'),
    livemode: livemodeSchema,
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

export const transcriptSpeakers = ['agent', 'contact', 'system'] as const;

/** One turn of a conversation; `system` turns are notes, not speech (e.g. the sandbox's simulation notice). */
export const transcriptTurnSchema = z
  .object({
    speaker: z.enum(transcriptSpeakers).describe('`agent` (the voice agent), `contact` (the other party) or `system` (a note)'),
    text: z.string(),
    offset_seconds: z.number().nonnegative().nullable().describe('When the turn began, in seconds from the answer'),
  })
  .meta({ id: 'TranscriptTurn' });
export type TranscriptTurn = z.infer<typeof transcriptTurnSchema>;

export const callStatusChangeSchema = z.object({ status: z.enum(callStatuses), at: timestampSchema }).meta({ id: 'CallStatusChange' });

/**
 * The full call adds what is too large for lists: the transcript, the summary, the recording, and its
 * timeline (every status it reached, in order), what a call's page shows.
 */
export const callSchema = callListItemSchema
  .extend({
    recording_url: z.string().nullable(),
    transcript: z.string().nullable().describe('The transcript as text, one `Speaker: words` line per turn'),
    transcript_turns: z
      .array(transcriptTurnSchema)
      .nullable()
      .describe('The same transcript as turns, when the carrier gives them (null when only the text is known)'),
    summary: z.string().nullable(),
    timeline: z.array(callStatusChangeSchema).describe('Each status the call reached, oldest first, with when'),
  })
  .meta({ id: 'Call' });

export type Call = z.infer<typeof callSchema>;
export type CallListItem = z.infer<typeof callListItemSchema>;
export type CallStatusChange = z.infer<typeof callStatusChangeSchema>;

const createdRangeSchema = {
  created_after: timestampSchema.optional().describe('Only items created at or after this time'),
  created_before: timestampSchema.optional().describe('Only items created before this time'),
};

export const listCallsQuerySchema = twoWayListQuerySchema.extend({
  direction: z.enum(callDirections).optional(),
  outcome: z.enum(callOutcomes).optional(),
  status: z.enum(callStatuses).optional(),
  lead_id: leadIdSchema.optional(),
  number: numberSearchSchema.optional(),
  ...createdRangeSchema,
});
export type ListCallsQuery = z.infer<typeof listCallsQuerySchema>;

export const callPageSchema = twoWayPageSchema(callListItemSchema).meta({ id: 'CallPage' });

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

/** Counts of calls, as the stats and the overview give them. */
const callCountsShape = {
  total: z.number().int().nonnegative(),
  by_direction: z.object({ inbound: z.number().int(), outbound: z.number().int() }),
  by_outcome: z.object({
    ...Object.fromEntries(callOutcomes.map((outcome) => [outcome, z.number().int()])),
    none: z.number().int().describe('Calls without an outcome (yet)'),
  } as Record<CallOutcome | 'none', z.ZodNumber>),
  by_status: z.object(Object.fromEntries(callStatuses.map((status) => [status, z.number().int()])) as Record<CallStatus, z.ZodNumber>),
  total_duration_seconds: z.number().int().nonnegative(),
};

export const callStatsSchema = z
  .object({
    object: z.literal('call_stats'),
    created_after: timestampSchema.describe('Start of the period (default: 30 days ago)'),
    created_before: timestampSchema.describe('End of the period (default: now)'),
    ...callCountsShape,
  })
  .meta({ id: 'CallStats' });
export type CallStats = z.infer<typeof callStatsSchema>;

// ---------------------------------------------------------------------------------------------------------
// The overview: calls and messages over a period, for the console's first page

export const overviewPeriods = ['today', '7d', '30d'] as const;
/** The steps of an overview's `series`: hours or calendar days of its time zone. */
export const overviewIntervals = ['hour', 'day'] as const;
export type OverviewInterval = (typeof overviewIntervals)[number];

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const timeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Paris')
  .describe('IANA time zone, e.g. Europe/Paris');

export const overviewQuerySchema = z
  .object({
    period: z
      .enum(overviewPeriods)
      .optional()
      .describe('`today`, or the last 7 or 30 days counting today, from midnight in `time_zone` until now (default `30d`)'),
    time_zone: timeZoneSchema.default('UTC'),
    from: timestampSchema.optional().describe('Start of an explicit period (inclusive), instead of `period`'),
    to: timestampSchema.optional().describe('End of an explicit period (exclusive; default now)'),
    interval: z
      .enum(overviewIntervals)
      .optional()
      .describe('Also count the calls of each hour (periods up to 2 days) or calendar day (up to 92 days) of `time_zone`, in `series`'),
  })
  .refine((query) => !(query.period && (query.from || query.to)), { message: 'give a period or from/to, not both', path: ['period'] })
  .refine((query) => !query.to || query.from, { message: 'to needs from', path: ['from'] })
  .refine((query) => !query.from || !query.to || Date.parse(query.from) < Date.parse(query.to), {
    message: 'from must be before to',
    path: ['to'],
  });
export type OverviewQuery = z.infer<typeof overviewQuerySchema>;

const rateSchema = z.number().min(0).max(1).nullable();

/** The calls of one hour or day of an overview's period, for its chart. */
export const overviewBucketSchema = z
  .object({
    start: timestampSchema.describe("Where the hour or day begins in the time zone (the period's `from` for the first)"),
    calls: z.object({
      total: z.number().int().nonnegative(),
      by_direction: callCountsShape.by_direction,
      by_outcome: callCountsShape.by_outcome,
    }),
  })
  .meta({ id: 'TelephonyOverviewBucket' });
export type OverviewBucket = z.infer<typeof overviewBucketSchema>;

export const overviewSchema = z
  .object({
    object: z.literal('telephony_overview'),
    from: timestampSchema,
    to: timestampSchema,
    time_zone: z.string(),
    calls: z.object({
      ...callCountsShape,
      answered: z.number().int().nonnegative().describe('Calls that were answered'),
      answer_rate: rateSchema.describe('Answered share of the calls that rang out (not queued, ringing or canceled); null without any'),
      average_duration_seconds: z.number().nonnegative().nullable().describe('Mean length of the answered calls; null without any'),
      cost: moneySchema,
    }),
    sms: z.object({
      total: z.number().int().nonnegative(),
      by_direction: z.object({ inbound: z.number().int(), outbound: z.number().int() }),
      by_status: z.object(Object.fromEntries(smsStatuses.map((status) => [status, z.number().int()])) as Record<SmsStatus, z.ZodNumber>),
      sent: z.number().int().nonnegative().describe('Outbound messages the carrier took (sent, delivered or undelivered)'),
      delivered: z.number().int().nonnegative(),
      delivery_rate: rateSchema.describe('Delivered share of the sent messages; null without any'),
      segments: z.number().int().nonnegative(),
      cost: moneySchema,
    }),
    cost: moneySchema.describe('Calls and messages together'),
    series: z
      .array(overviewBucketSchema)
      .optional()
      .describe('With `interval`: every hour or day of the period, oldest first, the first and last cut by `from` and `to`'),
  })
  .meta({ id: 'TelephonyOverview' });
export type Overview = z.infer<typeof overviewSchema>;

// ---------------------------------------------------------------------------------------------------------
// SMS

export const smsDirections = callDirections;

export const smsSources = ['api', 'mcp', 'inbound', 'sequence'] as const;

/** Longest body accepted: what carriers concatenate at most (10 segments of GSM-7). */
export const smsMaxBodyLength = 1600;

export const smsSchema = z
  .object({
    id: idSchema('sms'),
    object: z.literal('sms'),
    livemode: livemodeSchema,
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

export const smsPageSchema = twoWayPageSchema(smsSchema).meta({ id: 'SmsPage' });

export const listSmsQuerySchema = twoWayListQuerySchema.extend({
  direction: z.enum(smsDirections).optional(),
  status: z.enum(smsStatuses).optional(),
  lead_id: leadIdSchema.optional(),
  phone: e164Schema.optional().describe('Messages from or to this number (a conversation)'),
  number: numberSearchSchema.optional(),
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

export const dncPageSchema = twoWayPageSchema(dncEntrySchema).meta({ id: 'DncPage' });

export const listDncQuerySchema = twoWayListQuerySchema.extend({
  phone: e164Schema.optional(),
  channel: z.enum(dncChannels).optional(),
  source: z.enum(dncSources).optional(),
  search: z.string().trim().min(1).max(100).optional().describe('Digits of the number, or words of the reason'),
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

/**
 * Test mode's magic numbers (README, "Test mode"): a test call to one of these plays out as stated, so a
 * developer can reach every branch of their webhook handler; a test message to the last is answered with an
 * inbound STOP. Any other number gets the simulator's realistic mix. Like payment providers' test cards, they
 * are in a range no real phone answers (+1 500 555 01xx, Twilio's test prefix).
 */
export const testPhoneNumbers = {
  '+15005550101': {
    status: 'completed',
    outcome: 'qualified_lead',
    means: 'Answered; the contact qualifies (the call’s lead, if it has one, is qualified: `lead.qualified`)',
  },
  '+15005550102': { status: 'completed', outcome: 'not_interested', means: 'Answered; the contact is not interested (not qualified)' },
  '+15005550103': { status: 'busy', outcome: null, means: 'The line is busy' },
  '+15005550104': { status: 'no_answer', outcome: null, means: 'Rings out with no answer' },
  '+15005550105': { status: 'completed', outcome: 'voicemail', means: 'Voicemail picks up; a message is left' },
  '+15005550106': { status: 'failed', outcome: null, means: 'The carrier fails the call' },
  '+15005550107': {
    status: 'completed',
    outcome: 'not_interested',
    means: 'For SMS: the recipient replies STOP (an inbound message and a do-not-call entry)',
  },
} as const satisfies Record<
  string,
  { status: Exclude<(typeof finalCallStatuses)[number], 'canceled'>; outcome: CallOutcome | null; means: string }
>;
export type TestPhoneNumber = keyof typeof testPhoneNumbers;
/** The magic number whose messages are answered STOP. */
export const testStopReplyNumber: TestPhoneNumber = '+15005550107';

/**
 * What a test helper may move a call to: the next step of its simulation when neither is given, a status
 * (`ringing`, `in_progress`, or a final one), or an outcome (the call is answered and completes with it).
 */
/** Where a test helper moves a call (the REST body's fields; MCP's tool takes them beside `call_id`). */
export const advanceCallFields = z.object({
  status: z.enum(callStatuses).exclude(['queued']).optional().describe('The state to move the call to; its next one when omitted'),
  outcome: z.enum(callOutcomes).optional().describe('Complete the call with this outcome (status completed)'),
});
/** An outcome completes a call: a test helper's move names a status, an outcome, or `completed` with an outcome. */
export const outcomeCompletes: [(body: z.infer<typeof advanceCallFields>) => boolean, { message: string; path: string[] }] = [
  (body) => !(body.status && body.outcome && body.status !== 'completed'),
  { message: 'An outcome completes the call: give status completed, or no status', path: ['outcome'] },
];
/** Optional (a POST with no body has a null one): without it the call takes its next step. */
export const advanceCallBodySchema = advanceCallFields
  .strict()
  .refine(...outcomeCompletes)
  .meta({ id: 'AdvanceCallBody' })
  .nullish();
export const advanceCallInputSchema = advanceCallFields.extend({ id: idSchema('call') }).refine(...outcomeCompletes);

export const simulateInboundCallBodySchema = z
  .object({
    from: e164Schema.describe('Who calls'),
    to: e164Schema.optional().describe("The organization's number called (any, in test mode); the platform's number when omitted"),
    outcome: z
      .enum(callOutcomes)
      .optional()
      .describe("How the conversation ends; when omitted, a magic number's outcome for `from`, else the simulator's pick"),
  })
  .strict()
  .meta({ id: 'SimulateInboundCallBody' });

export const simulateInboundSmsBodySchema = z
  .object({
    from: e164Schema.describe('Who writes'),
    to: e164Schema.optional().describe("The organization's number written to (any, in test mode); the platform's number when omitted"),
    body: z.string().min(1).max(1600).describe('The text; STOP opts the sender out, START back in, as for a real message'),
  })
  .strict()
  .meta({ id: 'SimulateInboundSmsBody' });

const testHelpers = ['test_helpers'];

const calls = ['calls'];
const sms = ['sms'];
const dnc = ['dnc'];
const bySmsId = z.object({ id: idSchema('sms') });
const byDncId = z.object({ id: idSchema('dnc') });

export const telephonyRpc = nameOperations({
  listCalls: defineRpc('svc.telephony.calls.list', listCallsQuerySchema, callPageSchema, 'read', {
    http: { method: 'GET', path: '/api/v1/phone/calls', tags: calls, summary: 'List calls, newest first', query: listCallsQuerySchema },
  }),
  getCall: defineRpc('svc.telephony.calls.get', byCallId, callSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/phone/calls/:id',
      tags: calls,
      summary: 'Get one call with its transcript, summary and status timeline',
      params: byCallId,
    },
  }),
  /** Queues an outbound call; a do-not-call number is `dnc_blocked` (422). */
  queueCall: defineRpc('svc.telephony.calls.queue', queueCallInputSchema, callSchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/phone/calls',
      tags: calls,
      summary: 'Queue an outbound call (refused with 422 dnc_blocked for do-not-call numbers)',
      description: 'Send an `Idempotency-Key` header to make retries safe: the same key and body queue one call.',
      body: queueCallBodySchema,
      fixed: { source: 'api' },
      status: 201,
      alsoStatus: 200,
    },
    idempotent: 'calls.queue',
    errors: ['invalid_request', 'not_found', 'conflict', 'dnc_blocked'],
  }),
  /** Cancels a queued or ringing call (the carrier hangs up a ringing one); any other status is `conflict` (409). */
  cancelCall: defineRpc('svc.telephony.calls.cancel', byCallId, callSchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/phone/calls/:id/cancel',
      tags: calls,
      summary: 'Cancel a call that is queued or ringing (409 once answered or ended)',
      params: byCallId,
    },
    errors: ['invalid_request', 'not_found', 'conflict'],
  }),
  callStats: defineRpc('svc.telephony.calls.stats', callStatsQuerySchema, callStatsSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/phone/calls/stats',
      tags: calls,
      summary: 'Count calls by outcome, direction and status over a period (default: the last 30 days)',
      query: callStatsQuerySchema,
    },
  }),
  /** Calls and messages over a period in the person's time zone: the console's overview. */
  getOverview: defineRpc('svc.telephony.overview.get', overviewQuerySchema, overviewSchema, 'read'),
  listSms: defineRpc('svc.telephony.sms.list', listSmsQuerySchema, smsPageSchema, 'read', {
    http: { method: 'GET', path: '/api/v1/phone/sms', tags: sms, summary: 'List messages, newest first', query: listSmsQuerySchema },
  }),
  getSms: defineRpc('svc.telephony.sms.get', bySmsId, smsSchema, 'read', {
    http: { method: 'GET', path: '/api/v1/phone/sms/:id', tags: sms, summary: 'Get one message', params: bySmsId },
  }),
  /** Sends an SMS; a do-not-call number is `dnc_blocked` (422). */
  sendSms: defineRpc('svc.telephony.sms.send', sendSmsInputSchema, smsSchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/phone/sms',
      tags: sms,
      summary: 'Send an SMS (refused with 422 dnc_blocked for do-not-call numbers)',
      description: 'Send an `Idempotency-Key` header to make retries safe: the same key and body send one message.',
      body: sendSmsBodySchema,
      fixed: { source: 'api' },
      status: 201,
      alsoStatus: 200,
    },
    idempotent: 'sms.send',
    errors: ['invalid_request', 'conflict', 'dnc_blocked'],
  }),
  listDnc: defineRpc('svc.telephony.dnc.list', listDncQuerySchema, dncPageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/phone/dnc',
      tags: dnc,
      summary: 'List do-not-call entries, newest first',
      query: listDncQuerySchema,
    },
  }),
  /** One entry of the organization (the console's removal confirmation); another organization's id is `not_found`. */
  getDnc: defineRpc('svc.telephony.dnc.get', byDncId, dncEntrySchema, 'read'),
  /** Adds a number; adding one that is already listed for that channel returns the existing entry. */
  addDnc: defineRpc('svc.telephony.dnc.add', addDncInputSchema, dncEntrySchema, 'read-write', {
    http: {
      method: 'POST',
      path: '/api/v1/phone/dnc',
      tags: dnc,
      summary: 'Add a number to the do-not-call list (201; 200 with the existing entry if already listed)',
      body: addDncBodySchema,
      fixed: { source: 'api' },
      status: 201,
      alsoStatus: 200,
    },
    errors: ['invalid_request'],
  }),
  removeDnc: defineRpc('svc.telephony.dnc.remove', byDncId, deletedDncSchema, 'read-write', {
    approval: true,
    http: { method: 'DELETE', path: '/api/v1/phone/dnc/:id', tags: dnc, summary: 'Remove a do-not-call entry', params: byDncId },
    errors: ['not_found'],
  }),
  checkDnc: defineRpc('svc.telephony.dnc.check', checkDncQuerySchema, dncCheckSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/phone/dnc/check',
      tags: dnc,
      summary: 'Is this number listed, and for which channels',
      query: checkDncQuerySchema,
    },
  }),
  /** Test mode: moves a test call on (README, "Test mode"); a call already ended is `conflict`. */
  advanceCall: defineRpc('svc.telephony.test_helpers.calls.advance', advanceCallInputSchema, callSchema, 'read-write', {
    testOnly: true,
    http: {
      method: 'POST',
      path: '/api/v1/test_helpers/calls/:id/advance',
      tags: testHelpers,
      summary: 'Test mode: move a test call to its next state, a chosen state or a chosen outcome',
      description:
        'Test keys only (404 for live keys). With no body the call takes the next step of its simulation (queued → ringing → in_progress → its scripted end); `status` moves it to that state through the ones before it; `outcome` answers it if needed and completes it with that outcome. Each change sends the events and fills the timeline as a real call does, and the simulation goes on from the new state by itself. A call that has ended, or a state it cannot reach from where it is, is 409 `conflict`.',
      params: byCallId,
      body: advanceCallBodySchema,
    },
    errors: ['invalid_request', 'not_found', 'conflict'],
  }),
  /** Test mode: an inbound call from a number, played out by the simulator. */
  simulateInboundCall: defineRpc('svc.telephony.test_helpers.calls.inbound', simulateInboundCallBodySchema, callSchema, 'read-write', {
    testOnly: true,
    http: {
      method: 'POST',
      path: '/api/v1/test_helpers/calls/inbound',
      tags: testHelpers,
      summary: 'Test mode: simulate an inbound call from a number',
      description:
        "Test keys only (404 for live keys). An inbound call filed under the test organization only: it rings (`call.ringing`), is answered (`call.started`) and completes with its outcome (`call.completed`) on the simulator's timings, as a real inbound call would.",
      body: simulateInboundCallBodySchema,
      status: 201,
    },
    errors: ['invalid_request'],
  }),
  /** Test mode: an inbound SMS from a number, handled as a real one (STOP and START included). */
  simulateInboundSms: defineRpc('svc.telephony.test_helpers.sms.inbound', simulateInboundSmsBodySchema, smsSchema, 'read-write', {
    testOnly: true,
    http: {
      method: 'POST',
      path: '/api/v1/test_helpers/sms/inbound',
      tags: testHelpers,
      summary: 'Test mode: simulate an inbound SMS from a number',
      description:
        'Test keys only (404 for live keys). Filed under the test organization only and announced (`sms.received`) as a real message; STOP adds the sender to the test do-not-call list (source `sms_stop`), START lifts that entry.',
      body: simulateInboundSmsBodySchema,
      status: 201,
    },
    errors: ['invalid_request'],
  }),
});

/**
 * `livemode` in a call's or message's event data: always there now, optional in the schema because the event
 * types were published without it (ARCHITECTURE.md, "Upgrades without loss"), and events already in the stream lack
 * it; the envelope's `livemode` says the same for every event.
 */
const eventLivemodeSchema = livemodeSchema.optional();

/**
 * The `data` of call events (`call.queued`, `call.ringing`, `call.started`, `call.completed`, `call.failed`,
 * `call.canceled`): the call as listed, plus `call_id` so consumers need not know the record's shape.
 */
export const callEventDataSchema = callListItemSchema.extend({ call_id: idSchema('call'), livemode: eventLivemodeSchema });

/** The `data` of SMS events (`sms.sent`, `sms.delivered`, `sms.failed`, `sms.received`). */
export const smsEventDataSchema = smsSchema.extend({ sms_id: idSchema('sms'), livemode: eventLivemodeSchema });

/** The `data` of `dnc.added` and `dnc.removed`. */
export const dncEventDataSchema = dncEntrySchema.extend({ dnc_id: idSchema('dnc') });
