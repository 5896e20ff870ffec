// Records and request schemas of the mcp service: approvals of destructive tool calls, and the messaging
// channels (Telegram, Slack) an organization approves them in.
import { z } from 'zod';
import { timestampSchema } from './common.js';
import { errorCodeSchema } from './errors.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc, nameOperations } from './rpc.js';

// ---------------------------------------------------------------------------------------------------------
// Approvals

/**
 * `pending` until a person decides (a tap, or the console); `approved` only while the action runs; then
 * `executed` or `failed`. `rejected` by Reject; `expired` when nobody decided before `expires_at`;
 * `withdrawn` when the agent that asked cancelled its MCP task before anyone decided.
 */
export const approvalStatuses = ['pending', 'approved', 'rejected', 'expired', 'executed', 'failed', 'withdrawn'] as const;
export type ApprovalStatus = (typeof approvalStatuses)[number];

/** The tools that never act directly (MCP-TOOLS.md, "approval"). */
export const approvalTools = ['service_delete_lead', 'service_remove_dnc', 'service_send_invoice', 'service_deliver_project'] as const;
export type ApprovalTool = (typeof approvalTools)[number];

export const approvalChannelKinds = ['telegram', 'slack'] as const;
export type ApprovalChannelKind = (typeof approvalChannelKinds)[number];

/**
 * Where an approval was decided: a tap in one of the channels, a person's Approve or Reject on the
 * approval's page in the console (which is no channel: nothing is sent there), or `mcp`: the requesting
 * agent withdrew it (MCP `tasks/cancel`).
 */
export const approvalResolvers = [...approvalChannelKinds, 'console', 'mcp'] as const;
export type ApprovalResolver = (typeof approvalResolvers)[number];

export const approvalDeliverySchema = z.object({
  channel: z.enum(approvalChannelKinds),
  status: z.enum(['sent', 'failed']),
  error: z.string().nullable().describe('Why the message could not be sent'),
});

export const approvalSchema = z
  .object({
    id: idSchema('approval'),
    object: z.literal('approval'),
    tool: z.enum(approvalTools).describe('The tool whose action waits for approval'),
    arguments: z.record(z.string(), z.unknown()).describe('The frozen arguments the action runs with, exactly as validated'),
    arguments_digest: z.string().describe('SHA-256 (hex) of the tool name and the canonical JSON of the arguments'),
    summary: z.string().describe('What the action will do, in one sentence, as the approver saw it'),
    status: z.enum(approvalStatuses),
    requested_by: z.string().describe('The API key that asked for the action'),
    bound_user_id: z
      .string()
      .nullable()
      .describe(
        "The person this approval was sent to as an MCP URL elicitation (the requesting key's or grant's owner): only they may decide it in the console; Telegram and Slack taps are unchanged",
      ),
    expires_at: timestampSchema,
    resolved_at: timestampSchema.nullable(),
    resolved_by: z
      .string()
      .nullable()
      .describe(
        'Who decided: as the messaging app named them, e.g. `telegram:@alice (id 42)`, the console user, e.g. `console:Alice Example (usr_…)`, or the key that withdrew it, e.g. `mcp:key_…`',
      ),
    resolved_via: z
      .enum(approvalResolvers)
      .nullable()
      .describe('Where it was decided: a tap in Telegram or Slack, the console, or withdrawn by the agent (mcp)'),
    result: z.record(z.string(), z.unknown()).nullable().describe('What the action returned, once executed'),
    error: z.object({ code: errorCodeSchema, message: z.string() }).nullable().describe('Why the action failed, once failed'),
    deliveries: z.array(approvalDeliverySchema).describe('Where the approval request was sent'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Approval' });
export type Approval = z.infer<typeof approvalSchema>;

export const approvalPageSchema = pageSchema(approvalSchema).meta({ id: 'ApprovalPage' });

export const listApprovalsQuerySchema = listQuerySchema.extend({
  status: z.enum(approvalStatuses).optional().describe('Only approvals in this status'),
  tool: z.enum(approvalTools).optional().describe('Only approvals of this tool'),
});
export type ListApprovalsQuery = z.infer<typeof listApprovalsQuerySchema>;

export const approvalIdParamsSchema = z.object({ id: idSchema('approval') });

/** What an approval tool returns instead of acting: nothing was done yet. */
export const pendingApprovalSchema = z
  .object({
    status: z.literal('pending_approval'),
    approval_id: idSchema('approval'),
    expires_at: timestampSchema,
    summary: z.string().describe('What will happen once a person approves; nothing has been done yet'),
    sent_to: z.array(z.enum(approvalChannelKinds)).describe('The messaging apps the approval request went to'),
    console_url: z.url().describe("The approval's page in the console, where a person may also approve or reject"),
  })
  .meta({ id: 'PendingApproval' });
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/**
 * What an approval tool's MCP task ends with when the person approved and the action ran (`tasks/result`):
 * the action's own result. Rejected, expired, failed and withdrawn approvals end as `isError` results.
 */
export const approvalOutcomeSchema = z
  .object({
    status: z.literal('executed'),
    approval_id: idSchema('approval'),
    summary: z.string().describe('What was done, as the approver saw it'),
    resolved_by: z.string().nullable().describe('Who approved'),
    resolved_via: z.enum(approvalResolvers).nullable().describe('Where it was approved'),
    resolved_at: timestampSchema.nullable(),
    result: z.record(z.string(), z.unknown()).describe('What the action returned, e.g. the sent invoice'),
  })
  .meta({ id: 'ApprovalOutcome' });
export type ApprovalOutcome = z.infer<typeof approvalOutcomeSchema>;

/** The `data` of `approval.requested` and `approval.resolved`: the approval without its result body. */
export const approvalEventDataSchema = approvalSchema.omit({ result: true }).extend({ approval_id: idSchema('approval') });

// ---------------------------------------------------------------------------------------------------------
// Channels: where an organization's approvals are sent

/**
 * A Telegram chat id: a user's or a group's number (groups are negative). Numbers only: a tap arrives
 * with the chat's number, so a chat linked by `@username` could never be matched to it.
 */
export const telegramChatIdSchema = z
  .union([z.number().int(), z.string().regex(/^-?[0-9]{1,20}$/, 'must be a numeric Telegram chat id, e.g. -1001234567890')])
  .transform(String)
  .describe('Telegram chat id of the approvers’ chat or group (add the bot to the group first)');

export const slackChannelIdSchema = z
  .string()
  .regex(/^[CGD][A-Z0-9]{6,20}$/, 'must be a Slack channel id, e.g. C0123456789')
  .describe('Slack channel id (C…, G… or D…); invite the app to the channel first');

export const putTelegramChannelSchema = z.object({ chat_id: telegramChatIdSchema }).strict().meta({ id: 'PutTelegramChannel' });

export const putSlackChannelSchema = z
  .object({
    channel_id: slackChannelIdSchema,
    // Slack's own host only: the URL is posted to from inside the platform, so any other would be a way
    // to make the platform send requests into networks it can reach (SSRF).
    webhook_url: z
      .url({ protocol: /^https$/, hostname: /^hooks\.slack\.com$/ })
      .max(2048)
      .optional()
      .describe('An incoming-webhook URL for that channel; when set, approval requests are posted there instead of with chat.postMessage'),
  })
  .strict()
  .meta({ id: 'PutSlackChannel' });

export const approvalChannelSchema = z
  .object({
    object: z.literal('approval_channel'),
    kind: z.enum(approvalChannelKinds),
    chat_id: z.string().nullable().describe('Telegram chat id'),
    channel_id: z.string().nullable().describe('Slack channel id'),
    webhook_url_set: z.boolean().describe('Slack: whether requests are posted through an incoming webhook'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'ApprovalChannel' });
export type ApprovalChannel = z.infer<typeof approvalChannelSchema>;

export const approvalChannelListSchema = z.object({ data: z.array(approvalChannelSchema) }).meta({ id: 'ApprovalChannelList' });

export const deletedApprovalChannelSchema = z.object({
  object: z.literal('approval_channel'),
  kind: z.enum(approvalChannelKinds),
  deleted: z.literal(true),
});

// ---------------------------------------------------------------------------------------------------------
// NATS operations: the REST API's views and changes for the console, and the console's own decision.

export const decideApprovalInputSchema = z
  .object({
    id: idSchema('approval'),
    decision: z.enum(['approve', 'reject']),
    /** The person's name as the console knows it; the service records it with the identity's user id. */
    approver_name: z.string().trim().min(1).max(200).describe('Name of the person deciding, recorded in `resolved_by`'),
  })
  .strict();

/** What a decision did: like a tap's answer, a decision that changed nothing says why. */
export const approvalDecisionSchema = z.object({
  acted: z.boolean().describe('Whether this decision changed anything'),
  notice: z.string().describe('What to tell the person who decided'),
  approval: approvalSchema,
});
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** The linked channels, and which kinds this platform can send to (a bot token, a Slack app). */
export const approvalChannelsOverviewSchema = approvalChannelListSchema.extend({
  available: z.object({
    telegram: z.boolean().describe('The platform has a Telegram bot'),
    slack: z.boolean().describe('The platform has a Slack app (its signing secret)'),
    slack_bot: z.boolean().describe('The Slack app can post by itself; otherwise a channel needs an incoming-webhook URL'),
  }),
});
export type ApprovalChannelsOverview = z.infer<typeof approvalChannelsOverviewSchema>;

export const approvalChannelKindParamsSchema = z.object({ kind: z.enum(approvalChannelKinds) });

/** How many of the organization's approvals wait for a person: the console shows it in its navigation. */
export const waitingApprovalsSchema = z.object({ object: z.literal('approval_count'), pending: z.number().int().nonnegative() });

export const mcpRpc = nameOperations({
  listApprovals: defineRpc('svc.mcp.approvals.list', listApprovalsQuerySchema, approvalPageSchema, 'read'),
  getApproval: defineRpc('svc.mcp.approvals.get', approvalIdParamsSchema, approvalSchema, 'read'),
  countWaiting: defineRpc('svc.mcp.approvals.count_waiting', z.object({}), waitingApprovalsSchema, 'read'),
  /**
   * Approve or reject a pending approval, for a person in the console only (an identity with `user_id`): an
   * API key can never decide, so an agent cannot approve its own destructive action.
   */
  decideApproval: defineRpc('svc.mcp.approvals.decide', decideApprovalInputSchema, approvalDecisionSchema, 'read-write'),
  listChannels: defineRpc('svc.mcp.channels.list', z.object({}), approvalChannelsOverviewSchema, 'read'),
  linkTelegram: defineRpc('svc.mcp.channels.link_telegram', putTelegramChannelSchema, approvalChannelSchema, 'read-write'),
  linkSlack: defineRpc('svc.mcp.channels.link_slack', putSlackChannelSchema, approvalChannelSchema, 'read-write'),
  unlinkChannel: defineRpc('svc.mcp.channels.unlink', approvalChannelKindParamsSchema, deletedApprovalChannelSchema, 'read-write'),
});
