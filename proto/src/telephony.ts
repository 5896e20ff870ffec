import { z } from 'zod';
import { e164Schema, metadataSchema, timestampSchema } from './common.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc } from './rpc.js';

export const callDirections = ['inbound', 'outbound'] as const;
export const callStatuses = ['queued', 'ringing', 'in_progress', 'completed', 'failed', 'canceled', 'no_answer', 'busy'] as const;
export const callOutcomes = ['qualified_lead', 'booked', 'message_taken', 'not_interested', 'voicemail', 'wrong_number', 'spam'] as const;
export const callSources = ['api', 'mcp', 'inbound', 'sequence'] as const;

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
    end_reason: z.string().nullable(),
    source: z.enum(callSources),
    duration_seconds: z.number().int().nonnegative().nullable(),
    cost: z.object({ amount: z.number().int(), currency: z.string() }).nullable(),
    metadata: metadataSchema,
    created_at: timestampSchema,
    started_at: timestampSchema.nullable(),
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

export const listCallsQuerySchema = listQuerySchema.extend({
  direction: z.enum(callDirections).optional(),
  outcome: z.enum(callOutcomes).optional(),
  status: z.enum(callStatuses).optional(),
  lead_id: idSchema('lead').optional(),
  created_after: timestampSchema.optional(),
  created_before: timestampSchema.optional(),
});
export type ListCallsQuery = z.infer<typeof listCallsQuerySchema>;

export const callPageSchema = pageSchema(callListItemSchema).meta({ id: 'CallPage' });

export const telephonyRpc = {
  listCalls: defineRpc('svc.telephony.calls.list', listCallsQuerySchema, callPageSchema),
  getCall: defineRpc('svc.telephony.calls.get', z.object({ id: idSchema('call') }), callSchema),
};
