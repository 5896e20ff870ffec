import {
  addDncBodySchema,
  idempotencyKeyArgumentSchema,
  idSchema,
  listCallsQuerySchema,
  listDncQuerySchema,
  listSmsQuerySchema,
  queueCallBodySchema,
  sendSmsBodySchema,
  telephonyRpc,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { approvalTool } from './approval-tool.js';

const callId = idSchema('call').describe('The call, e.g. from service_list_calls');

export const telephonyTools = [
  defineTool({
    name: 'service_list_calls',
    toolset: 'calls',
    title: 'List calls',
    description: 'Calls by direction, outcome (e.g. `qualified_lead`), status, lead and creation period.',
    operation: telephonyRpc.listCalls,
    // The console's searches (number, a conversation's phone, DNC search) stay out of tools/list, whose
    // size agents pay for in context (its budget is tested).
    input: listCallsQuerySchema.omit({ number: true }),
  }),
  defineTool({
    name: 'service_get_call',
    toolset: 'calls',
    title: 'Get a call',
    description: 'One call with transcript, summary, recording, status timeline.',
    operation: telephonyRpc.getCall,
    input: z.object({ call_id: callId }),
    rpcInput: (args) => ({ id: args.call_id }),
  }),
  defineTool({
    name: 'service_queue_call',
    toolset: 'calls',
    title: 'Queue an outbound call',
    description: 'Queues an outbound call by the voice agent to `to` (E.164); dnc_blocked if the number is on the DNC list.',
    operation: telephonyRpc.queueCall,
    annotations: { openWorldHint: true },
    input: queueCallBodySchema.extend({ idempotency_key: idempotencyKeyArgumentSchema }),
    rpcInput: (args) => ({ ...args, source: 'mcp' as const }),
  }),
  defineTool({
    name: 'service_cancel_call',
    toolset: 'calls',
    title: 'Cancel a queued or ringing call',
    description: 'Cancels a queued or ringing call; one answered or finished is a conflict.',
    operation: telephonyRpc.cancelCall,
    annotations: { idempotentHint: true },
    input: z.object({ call_id: callId }),
    rpcInput: (args) => ({ id: args.call_id }),
  }),
  defineTool({
    name: 'service_call_stats',
    toolset: 'calls',
    title: 'Call statistics',
    description: 'Calls counted by outcome, direction, status, and talk time, over a period (default 30 days).',
    operation: telephonyRpc.callStats,
  }),
  defineTool({
    name: 'service_list_sms',
    toolset: 'calls',
    title: 'List SMS',
    description: 'Text messages by direction, status, lead and creation period.',
    operation: telephonyRpc.listSms,
    input: listSmsQuerySchema.omit({ number: true, phone: true }),
  }),
  defineTool({
    name: 'service_get_sms',
    toolset: 'calls',
    title: 'Get an SMS',
    description: 'One text message with its delivery status.',
    operation: telephonyRpc.getSms,
    input: z.object({ sms_id: idSchema('sms').describe('The message, e.g. from service_list_sms') }),
    rpcInput: (args) => ({ id: args.sms_id }),
  }),
  defineTool({
    name: 'service_send_sms',
    toolset: 'calls',
    title: 'Send an SMS',
    description: 'Sends a text message to `to` (E.164); dnc_blocked if the number is on the DNC list.',
    operation: telephonyRpc.sendSms,
    annotations: { openWorldHint: true },
    input: sendSmsBodySchema.extend({ idempotency_key: idempotencyKeyArgumentSchema }),
    rpcInput: (args) => ({ ...args, source: 'mcp' as const }),
  }),
  defineTool({
    name: 'service_list_dnc',
    toolset: 'calls',
    title: 'List do-not-call entries',
    description: 'Do-not-call entries, filtered by phone, channel or source.',
    operation: telephonyRpc.listDnc,
    input: listDncQuerySchema.omit({ search: true }),
  }),
  defineTool({
    name: 'service_check_dnc',
    toolset: 'calls',
    title: 'Check a number against the do-not-call list',
    description: 'Whether a number is listed, on which channels, and whether a call or SMS to it is refused.',
    operation: telephonyRpc.checkDnc,
  }),
  defineTool({
    name: 'service_add_dnc',
    toolset: 'calls',
    title: 'Add a number to the do-not-call list',
    description: 'Lists a number for voice, sms or all; one already listed returns its entry.',
    operation: telephonyRpc.addDnc,
    annotations: { idempotentHint: true },
    input: addDncBodySchema,
    rpcInput: (args) => ({ ...args, source: 'mcp' as const }),
  }),
  approvalTool('service_remove_dnc', {
    toolset: 'calls',
    title: 'Remove a number from the do-not-call list',
    description: 'Removes a do-not-call entry (one channel, or all); the number may then be called or texted again.',
    openWorld: false,
  }),
];
