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
    livemode: z
      .boolean()
      .describe("False when a test credential asked (the organization's test twin): the action would change test data only"),
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

/**
 * The `data` of `approval.requested` and `approval.resolved`: the approval without its result body, and
 * without `livemode`, which the event's envelope states for every event (one fact in one place).
 */
export const approvalEventDataSchema = approvalSchema.omit({ result: true, livemode: true }).extend({ approval_id: idSchema('approval') });

// ---------------------------------------------------------------------------------------------------------
// Channels: where an organization's approvals are sent

/** Slack's own host only: the URL is posted to from inside the platform, so any other would be a way to make
 * the platform send requests into networks it can reach (SSRF). */
const slackWebhookUrlSchema = z
  .url({ protocol: /^https$/, hostname: /^hooks\.slack\.com$/ })
  .max(2048)
  .describe(
    'Slack only: an incoming-webhook URL of the channel; when set, approval requests are posted there instead of with chat.postMessage',
  );

/**
 * Asks for a one-time link code. A chat is linked only by sending the code to the platform's bot from that
 * chat (Telegram `/start <code>`, Slack `/approvals <code>`): that proves whoever linked it controls the
 * chat. A chat or channel id alone links nothing, since any organization could name any chat.
 */
export const startChannelLinkSchema = z
  .object({
    kind: z.enum(approvalChannelKinds).describe('Where approval requests should go'),
    webhook_url: slackWebhookUrlSchema.optional(),
  })
  .strict()
  .refine((input) => input.kind === 'slack' || input.webhook_url === undefined, {
    message: 'webhook_url is for Slack only',
    path: ['webhook_url'],
  })
  .meta({ id: 'StartChannelLink' });

/** The Slack slash command the platform's app registers for link codes (services/mcp/README.md, "Linking Slack"). */
export const slackLinkCommand = '/approvals';

export const channelLinkCodeSchema = z
  .object({
    object: z.literal('approval_channel_link_code'),
    kind: z.enum(approvalChannelKinds),
    code: z.string().describe('Send it to the bot from the chat to link; single-use'),
    expires_at: timestampSchema,
    command: z.string().describe('What to send from the chat, e.g. `/start@approvals_bot K7Q2XW9M4RTA`'),
    deep_link: z
      .string()
      .nullable()
      .describe(
        'Telegram: a t.me link that adds the bot to a group and sends the code there; null for Slack, or when the bot’s name is unknown',
      ),
  })
  .meta({ id: 'ChannelLinkCode' });
export type ChannelLinkCode = z.infer<typeof channelLinkCodeSchema>;

export const approvalChannelSchema = z
  .object({
    object: z.literal('approval_channel'),
    kind: z.enum(approvalChannelKinds),
    chat_id: z.string().nullable().describe('Telegram chat id'),
    channel_id: z.string().nullable().describe('Slack channel id'),
    webhook_url_set: z.boolean().describe('Slack: whether requests are posted through an incoming webhook'),
    linked_by: z.string().nullable().describe('Who sent the link code from the chat; null for a chat linked by its id before link codes'),
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
// Operations: the REST API's approvals and channels (also on NATS, for the console), and the console's own
// decision, count and channel overview.

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

const approvals = ['approvals'];

export const mcpRpc = nameOperations({
  listApprovals: defineRpc('svc.mcp.approvals.list', listApprovalsQuerySchema, approvalPageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/approvals',
      tags: approvals,
      summary: 'List approvals of destructive MCP actions, newest first',
      query: listApprovalsQuerySchema,
    },
  }),
  getApproval: defineRpc('svc.mcp.approvals.get', approvalIdParamsSchema, approvalSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/approvals/:id',
      tags: approvals,
      summary: 'One approval and its outcome',
      params: approvalIdParamsSchema,
    },
    errors: ['not_found'],
  }),
  countWaiting: defineRpc('svc.mcp.approvals.count_waiting', z.object({}), waitingApprovalsSchema, 'read'),
  /**
   * Approve or reject a pending approval, for a person in the console only (an identity with `user_id`): an
   * API key can never decide, so an agent cannot approve its own destructive action.
   */
  decideApproval: defineRpc('svc.mcp.approvals.decide', decideApprovalInputSchema, approvalDecisionSchema, 'read-write'),
  /** The linked channels, as the REST API lists them. */
  listChannels: defineRpc('svc.mcp.channels.list_linked', z.object({}), approvalChannelListSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/approvals/channels',
      tags: approvals,
      summary: 'The messaging channels approval requests are sent to',
    },
  }),
  /**
   * The linked channels and which kinds the platform can send to, for the console's Approvals page. It keeps
   * the subject the console has always called (`svc.mcp.channels.list`), so either side may be deployed first.
   */
  channelsOverview: defineRpc('svc.mcp.channels.list', z.object({}), approvalChannelsOverviewSchema, 'read'),
  startChannelLink: defineRpc('svc.mcp.channels.start_link', startChannelLinkSchema, channelLinkCodeSchema, 'read-write'),
  unlinkChannel: defineRpc('svc.mcp.channels.unlink', approvalChannelKindParamsSchema, deletedApprovalChannelSchema, 'read-write', {
    http: {
      method: 'DELETE',
      path: '/api/v1/approvals/channels/:kind',
      tags: approvals,
      summary: 'Stop sending approval requests to this channel',
      params: approvalChannelKindParamsSchema,
    },
    errors: ['not_found'],
  }),
});
