import { ApiError, eventId, newId, type PendingEvents, toApiError } from '@voice/kit';
import {
  type ApprovalChannelKind,
  type ApprovalDecision,
  type ApprovalTool,
  approvalEventDataSchema,
  approvalTools,
  gatewayRpc,
  type Identity,
  type PendingApproval,
  type RpcDefinition,
} from '@voice/proto';
import type { z } from 'zod';
import { approvalBlocks } from '../channels/slack.js';
import { inBackground, type McpDeps } from '../deps.js';
import { inToolTerms } from '../mcp/tool-errors.js';
import {
  type ApprovalRow,
  claimPending,
  type Delivery,
  deliveriesOf,
  expireDue,
  failStale,
  findApproval,
  findApprovalForTap,
  findWaiting,
  finishExecution,
  insertApproval,
  requesterSchema,
  saveDeliveries,
  toApproval,
} from '../store/approvals.js';
import { findChannel, listChannels } from '../store/channels.js';
import { approvalActions, type Caller } from './approval-actions.js';
import { mailApprovers } from './approval-mail.js';
import { argumentsDigest, canonicalJson } from './canonical.js';
import { type McpTx, withEvents } from './events.js';

/** The operations an approval action calls, as the caller; their errors name the tool's arguments (inToolTerms). */
export function callerFor(deps: McpDeps, identity: Identity, args: Record<string, unknown>): Caller {
  return <D extends RpcDefinition>(rpc: D, input: z.input<D['input']>) =>
    deps.bus.call(rpc, identity, input).catch((error: unknown) => {
      throw inToolTerms(error, args, input);
    });
}

function requestText(row: ApprovalRow): string {
  return [
    `Approval needed: ${row.summary}`,
    '',
    `Tool: ${row.tool}`,
    `Arguments: ${canonicalJson(row.arguments)}`,
    `Digest: ${row.argumentsDigest.slice(0, 16)}`,
    `Asked by API key ${row.requestedBy}`,
    `Expires: ${row.expiresAt.toISOString()}`,
    `Id: ${row.id}`,
  ].join('\n');
}

function outcomeLine(row: ApprovalRow): string {
  const by = row.resolvedBy ? ` by ${row.resolvedBy}` : '';
  switch (row.status) {
    case 'executed':
      return `✅ Approved${by}, and done.`;
    case 'failed':
      return row.resolvedBy
        ? `⚠️ Approved${by}, but it failed: ${row.errorCode}: ${row.errorMessage}`
        : `⚠️ Not done: ${row.errorCode}: ${row.errorMessage}`;
    case 'rejected':
      return `❌ Rejected${by}. Nothing was done.`;
    case 'expired':
      return '⌛ Expired before anyone approved it. Nothing was done.';
    case 'approved':
      return `⏳ Approved${by}; running.`;
    case 'withdrawn':
      return `↩️ Withdrawn by the agent that asked (${row.resolvedBy ?? 'its key'}), before anyone decided. Nothing was done.`;
    case 'pending':
      return '';
  }
}

export function resolvedText(row: ApprovalRow): string {
  return `${requestText(row).replace(/^Approval needed: /, 'Approval request: ')}\n\n${outcomeLine(row)}`;
}

/** Sends the request to every channel the organization linked; returns where it went and how. */
async function deliver(deps: McpDeps, row: ApprovalRow): Promise<Delivery[]> {
  const channels = await listChannels(deps.prisma, row.orgId);
  const text = requestText(row);
  return Promise.all(
    channels.map(async (channel): Promise<Delivery> => {
      try {
        if (channel.kind === 'telegram') {
          if (!deps.telegram) throw new Error('the platform has no Telegram bot configured (TELEGRAM_BOT_TOKEN)');
          const ref = await deps.telegram.sendMessage(channel.target, text, [
            [
              { text: 'Approve', callback_data: `approve:${row.id}` },
              { text: 'Reject', callback_data: `reject:${row.id}` },
            ],
          ]);
          return { channel: 'telegram', status: 'sent', error: null, chat_id: ref.chatId, message_id: ref.messageId };
        }
        if (channel.webhookUrl) {
          await deps.slack.postWebhook(channel.webhookUrl, text, approvalBlocks(text, row.id));
          return { channel: 'slack', status: 'sent', error: null, slack_channel: channel.target };
        }
        const ref = await deps.slack.postMessage(channel.target, text, approvalBlocks(text, row.id));
        return { channel: 'slack', status: 'sent', error: null, slack_channel: ref.channel, ts: ref.ts };
      } catch (error) {
        deps.logger.warn({ err: error, approval_id: row.id, channel: channel.kind }, 'approval request not delivered');
        return { channel: channel.kind, status: 'failed', error: (error as Error).message };
      }
    }),
  );
}

/** Records `approval.requested` or `approval.resolved` in the transaction that changed the approval. */
function recordApprovalEvent(events: PendingEvents, type: 'approval.requested' | 'approval.resolved', row: ApprovalRow, now: Date) {
  const { result: _result, ...approval } = toApproval(row, now);
  events.add(type, row.orgId, approvalEventDataSchema.parse({ ...approval, approval_id: row.id }), {
    // Derived, so a retried change records the same event; one of each type per approval.
    id: eventId(`${type}:${row.id}`),
    aggregateId: row.id,
  });
}

/** Edits every message the request was sent as, so none keeps live buttons after the approval is resolved. */
async function closeMessages(deps: McpDeps, row: ApprovalRow): Promise<void> {
  const text = resolvedText(row);
  await Promise.all(
    deliveriesOf(row).map(async (delivery) => {
      try {
        if (delivery.channel === 'telegram' && deps.telegram && delivery.chat_id && delivery.message_id !== undefined) {
          await deps.telegram.editMessageText({ chatId: delivery.chat_id, messageId: delivery.message_id }, text);
        } else if (delivery.channel === 'slack' && delivery.slack_channel && delivery.ts) {
          await deps.slack.updateMessage({ channel: delivery.slack_channel, ts: delivery.ts }, text);
        }
      } catch (error) {
        deps.logger.warn({ err: error, approval_id: row.id, channel: delivery.channel }, 'approval message not updated');
      }
    }),
  );
}

/** The approval's page in the console, where a person may decide instead of tapping. */
export function consoleApprovalUrl(deps: McpDeps, approvalId: string): string {
  return `${deps.env.PUBLIC_BASE_URL}/dashboard/approvals/${approvalId}`;
}

/** Where a person may decide, for the agent: the console always, and the chats the request reached. */
function whereToDecide(deps: McpDeps, approvalId: string, sent: Delivery[]): string {
  const chats = [...new Set(sent.map((delivery) => delivery.channel))];
  const page = `in the console (${consoleApprovalUrl(deps, approvalId)})`;
  return chats.length > 0 ? `${page} or in ${chats.join(' and ')}` : page;
}

/**
 * What an approval tool does instead of acting: checks the target exists (an id from another organization
 * is `not_found` now), freezes the arguments, stores the approval, tells the organization's linked
 * chats, and e-mails its owners and admins. The console lists every pending approval and decides it on its page, so an approval never needs a
 * messaging app: one the chats did not take (none linked, or each refused the message) waits there all the same.
 */
export async function requestApproval(
  deps: McpDeps,
  identity: Identity,
  tool: ApprovalTool,
  args: Record<string, unknown>,
  boundUserId?: string,
): Promise<PendingApproval> {
  const action = approvalActions[tool];
  // The target first: an id of another organization is not_found, whatever else is wrong.
  const summary = await action.describe(callerFor(deps, identity, args), args);
  const now = deps.now();
  const digest = argumentsDigest(tool, args);
  // An agent that retries must not flood the approvers: the same action already waiting is returned as is.
  const waiting = await findWaiting(deps.prisma, identity.org_id, tool, digest, now);
  if (waiting) {
    const sentTo = deliveriesOf(waiting).filter((delivery) => delivery.status === 'sent');
    return {
      status: 'pending_approval',
      approval_id: waiting.id,
      expires_at: waiting.expiresAt.toISOString(),
      summary: `Nothing was done yet, and nothing was sent again: the same action has been waiting for approval ${whereToDecide(deps, waiting.id, sentTo)} since ${waiting.createdAt.toISOString()}. Once approved: ${waiting.summary}`,
      sent_to: [...new Set(sentTo.map((delivery) => delivery.channel))],
      console_url: consoleApprovalUrl(deps, waiting.id),
    };
  }
  const { request_id: _requestId, ...requester } = identity;
  const row = await insertApproval(deps.prisma, identity.org_id, {
    id: newId('approval'),
    tool,
    arguments: args,
    argumentsDigest: digest,
    summary,
    requester,
    expiresAt: new Date(now.getTime() + deps.env.APPROVAL_TTL_SECONDS * 1000),
    boundUserId,
  });
  const deliveries = await deliver(deps, row);
  const sent = deliveries.filter((delivery) => delivery.status === 'sent');
  await withEvents(deps, async (tx, events) => {
    await saveDeliveries(tx, row.orgId, row.id, deliveries);
    recordApprovalEvent(events, 'approval.requested', await findApproval(tx, row.orgId, row.id), now);
  });
  // Stored and announced first; the e-mails go out after the answer, so a slow or absent SMTP server (or
  // console) never delays or fails the tool call. A failure is logged.
  inBackground(deps, 'approval e-mail', () => mailApprovers(deps, identity, row, consoleApprovalUrl(deps, row.id)));
  return {
    status: 'pending_approval',
    approval_id: row.id,
    expires_at: row.expiresAt.toISOString(),
    summary: `Nothing was done yet. Once a person approves ${whereToDecide(deps, row.id, sent)}: ${summary} See service_get_approval for the outcome.`,
    sent_to: [...new Set(sent.map((delivery) => delivery.channel))],
    console_url: consoleApprovalUrl(deps, row.id),
  };
}

async function execute(deps: McpDeps, row: ApprovalRow): Promise<ApprovalRow> {
  const tool = row.tool as ApprovalTool;
  let outcome: Parameters<typeof finishExecution>[3];
  try {
    if (!approvalTools.includes(tool)) throw new ApiError('internal', `Unknown approval tool ${row.tool}.`);
    const args = row.arguments as Record<string, unknown>;
    // The arguments are what the approver saw: a stored row that no longer matches its digest is refused.
    if (argumentsDigest(tool, args) !== row.argumentsDigest)
      throw new ApiError('conflict', 'The frozen arguments do not match their digest.');
    const action = approvalActions[tool];
    const parsed = action.input.parse(args);
    const identity: Identity = { ...requesterSchema.parse(row.requester), request_id: newId('request') };
    // The requester's key may have been revoked or narrowed while the approval waited: act only if it
    // could still ask for this now.
    const standing = await deps.bus.call(gatewayRpc.keyStanding, identity, { key_id: identity.key_id });
    if (standing.status !== 'active') throw new ApiError('revoked', 'The key that asked for this was revoked since; nothing was done.');
    if (standing.scope !== 'read-write')
      throw new ApiError('forbidden_scope', 'The key that asked for this is read-only now; nothing was done.');
    const result = await action.execute(callerFor(deps, identity, parsed), parsed);
    outcome = { status: 'executed', result };
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.code === 'internal') deps.logger.error({ err: error, approval_id: row.id }, 'approved action failed');
    outcome = { status: 'failed', code: apiError.code, message: apiError.message };
  }
  return withEvents(deps, async (tx, events) => {
    const finished = await finishExecution(tx, row.orgId, row.id, outcome);
    recordApprovalEvent(events, 'approval.resolved', finished, deps.now());
    return finished;
  });
}

export interface Tap {
  approvalId: string;
  decision: 'approve' | 'reject';
  via: ApprovalChannelKind;
  /** The Telegram chat or Slack channel the tap came from. */
  target: string;
  /** Who tapped, as the messaging app names them. */
  actor: string;
}

/** A person's Approve or Reject on the approval's page in the console: the organization is the identity's. */
export interface ConsoleDecision {
  approvalId: string;
  decision: 'approve' | 'reject';
  via: 'console';
  orgId: string;
  /** Who decided: `console:<name> (<user id>)`. */
  actor: string;
}

export interface TapOutcome {
  /** Whether this tap changed anything. */
  acted: boolean;
  /** What to tell the person who tapped. */
  notice: string;
  approval: ApprovalRow | undefined;
}

/**
 * The approval a decision is about. A tap carries no organization, so its chat must be the one linked to
 * the approval's organization; a console decision names its organization, where another one's id is
 * `not_found` (thrown).
 */
async function approvalToDecide(deps: McpDeps, decision: Tap | ConsoleDecision): Promise<ApprovalRow | TapOutcome> {
  if (decision.via === 'console') return findApproval(deps.prisma, decision.orgId, decision.approvalId);
  const row = await findApprovalForTap(deps.prisma, decision.approvalId);
  if (!row) return { acted: false, notice: 'Unknown approval; nothing was done.', approval: undefined };
  const channel = await findChannel(deps.prisma, row.orgId, decision.via);
  if (!channel || channel.target !== decision.target) {
    return {
      acted: false,
      notice: 'This chat is not linked to the organization that asked for this approval; nothing was done.',
      approval: undefined,
    };
  }
  return row;
}

/**
 * Approve or Reject, by a tap or in the console. Acts at most once per approval, whichever channel decides
 * first: a second decision, a replayed callback, a decision after expiry or a tap from a chat not linked to
 * the approval's organization changes nothing and says why.
 */
export async function decide(deps: McpDeps, decision: Tap | ConsoleDecision): Promise<TapOutcome> {
  const found = await approvalToDecide(deps, decision);
  if ('acted' in found) return found;
  const row = found;
  const now = deps.now();
  // A rejection resolves the approval here, so it is recorded with its event; an approval resolves when
  // its action has run (execute).
  const claimed = await withEvents(deps, async (tx, events) => {
    const done = await claimPending(tx, row.orgId, row.id, decision.decision === 'approve' ? 'approved' : 'rejected', {
      by: decision.actor,
      via: decision.via,
      at: now,
    });
    if (done && decision.decision === 'reject')
      recordApprovalEvent(events, 'approval.resolved', await findApproval(tx, row.orgId, row.id), now);
    return done;
  });
  if (!claimed) {
    const [expired] = await expireApprovals(deps, (tx) => expireDue(tx, now, { orgId: row.orgId, id: row.id }));
    if (expired) {
      await closeMessages(deps, expired);
      return { acted: false, notice: `This approval expired at ${row.expiresAt.toISOString()}; nothing was done.`, approval: expired };
    }
    const current = await findApproval(deps.prisma, row.orgId, row.id);
    const by = current.resolvedBy ? ` by ${current.resolvedBy}` : '';
    const notice =
      current.status === 'approved'
        ? `Already approved${by} and running; nothing more was done.`
        : current.status === 'expired'
          ? 'This approval expired; nothing was done.'
          : `Already ${current.status}${by}; nothing was done this time.`;
    return { acted: false, notice, approval: current };
  }
  const resolved =
    decision.decision === 'approve'
      ? await execute(deps, { ...row, status: 'approved' })
      : await findApproval(deps.prisma, row.orgId, row.id);
  await closeMessages(deps, resolved);
  const notice =
    resolved.status === 'executed'
      ? 'Approved: done.'
      : resolved.status === 'failed'
        ? `Approved, but the action failed: ${resolved.errorCode}: ${resolved.errorMessage}`
        : 'Rejected: nothing was done.';
  return { acted: true, notice, approval: resolved };
}

/**
 * A console person's decision (`svc.mcp.approvals.decide`). Only a person may decide: an identity without
 * `user_id` is an API key, and an agent must never approve the destructive action it asked for.
 */
export async function decideInConsole(
  deps: McpDeps,
  identity: Identity,
  input: { id: string; decision: 'approve' | 'reject'; approver_name: string },
): Promise<ApprovalDecision> {
  if (!identity.user_id)
    throw new ApiError('forbidden', 'Only a person signed in to the console can approve or reject; an API key never can.');
  // An approval sent to a person's MCP client as a URL elicitation is theirs to decide in the browser (the
  // spec binds such an elicitation to the user who asked); the messaging apps' taps are unchanged.
  const row = await findApproval(deps.prisma, identity.org_id, input.id);
  if (row.boundUserId && row.boundUserId !== identity.user_id) {
    throw new ApiError(
      'forbidden',
      `This approval was sent to the MCP client of the person who owns the asking key (${row.boundUserId}); only they can decide it in the console. Telegram and Slack still work.`,
    );
  }
  // One line, whatever the name holds: the messaging apps show `resolved_by` in the edited message.
  const name = input.approver_name.replace(/[\p{Cc}\s]+/gu, ' ').trim() || 'unnamed';
  const outcome = await decide(deps, {
    approvalId: input.id,
    decision: input.decision,
    via: 'console',
    orgId: identity.org_id,
    actor: `console:${name} (${identity.user_id})`,
  });
  const approval = outcome.approval ?? (await findApproval(deps.prisma, identity.org_id, input.id));
  return { acted: outcome.acted, notice: outcome.notice, approval: toApproval(approval, deps.now()) };
}

/** What a withdrawal did: whether it withdrew the approval, and the approval as it is now. */
export interface Withdrawal {
  withdrawn: boolean;
  approval: ApprovalRow;
}

/**
 * The requesting agent withdraws its approval (MCP `tasks/cancel`): the same once-only claim as a person's
 * decision, so a withdrawal and a tap racing each other cannot both win. Withdrawn, the approval's messages
 * are edited to say so and nothing is ever done; a later tap is told it was withdrawn. Another
 * organization's id is `not_found` (thrown).
 */
export async function withdrawApproval(deps: McpDeps, identity: Identity, approvalId: string): Promise<Withdrawal> {
  const row = await findApproval(deps.prisma, identity.org_id, approvalId);
  const now = deps.now();
  const withdrawn = await withEvents(deps, async (tx, events) => {
    const done = await claimPending(tx, row.orgId, row.id, 'withdrawn', { by: `mcp:${identity.key_id}`, via: 'mcp', at: now });
    if (done) recordApprovalEvent(events, 'approval.resolved', await findApproval(tx, row.orgId, row.id), now);
    return done;
  });
  const approval = await findApproval(deps.prisma, row.orgId, row.id);
  if (withdrawn) await closeMessages(deps, approval);
  return { withdrawn, approval };
}

/** An approved action runs within one RPC deadline; one still `approved` long after that was interrupted. */
const staleExecutionMs = 5 * 60 * 1000;

/** Resolves approvals without a person (expiry, an interrupted execution), each with its `approval.resolved`. */
function expireApprovals(deps: McpDeps, change: (tx: McpTx) => Promise<ApprovalRow[]>): Promise<ApprovalRow[]> {
  return withEvents(deps, async (tx, events) => {
    const rows = await change(tx);
    for (const row of rows) recordApprovalEvent(events, 'approval.resolved', row, deps.now());
    return rows;
  });
}

/**
 * Marks approvals past their expiry `expired`, and interrupted executions `failed`, with their
 * `approval.resolved` events; then edits their messages.
 */
export async function sweepExpired(deps: McpDeps): Promise<number> {
  const now = deps.now();
  const expired = await expireApprovals(deps, async (tx) => [
    ...(await expireDue(tx, now)),
    ...(await failStale(tx, now, staleExecutionMs)),
  ]);
  for (const row of expired) await closeMessages(deps, row);
  return expired.length;
}
