import { ApiError, newId, toApiError } from '@voice/kit';
import { type ApprovalChannelKind, type ApprovalDecision, type ApprovalTool, approvalTools, gatewayRpc, type Identity } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import {
  type ApprovalRow,
  claimPending,
  expireDue,
  failStale,
  findApproval,
  findApprovalForTap,
  finishExecution,
  requesterSchema,
  toApproval,
} from '../store/approvals.js';
import { findChannel } from '../store/channels.js';
import { approvalActions, callerFor } from './approval-actions.js';
import { recordApprovalEvent } from './approval-events.js';
import { closeMessages } from './approval-notifiers.js';
import { alreadyDecidedNotice, decidedNotice, expiredNotice, unknownApprovalNotice, unlinkedChatNotice } from './approval-texts.js';
import { argumentsDigest } from './canonical.js';
import { type McpTx, withEvents } from './events.js';

// What becomes of an approval once requested (approval-requests.ts stores it `pending`): a person approves it
// (`approved`, then `executed` or `failed` when its action has run, `failed` too when that run was interrupted)
// or rejects it; the agent that asked withdraws it; or nobody decides in time (`expired`). Each change is a
// once-only claim on the row, recorded with its `approval.resolved` event.

// The message texts are approval-texts.ts's; the Slack hooks route imports this one from here.
export { resolvedText } from './approval-texts.js';

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
  if (!row) return { acted: false, notice: unknownApprovalNotice, approval: undefined };
  const channel = await findChannel(deps.prisma, row.orgId, decision.via);
  if (!channel || channel.target !== decision.target) {
    return { acted: false, notice: unlinkedChatNotice, approval: undefined };
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
      return { acted: false, notice: expiredNotice(row), approval: expired };
    }
    const current = await findApproval(deps.prisma, row.orgId, row.id);
    return { acted: false, notice: alreadyDecidedNotice(current), approval: current };
  }
  const resolved =
    decision.decision === 'approve'
      ? await execute(deps, { ...row, status: 'approved' })
      : await findApproval(deps.prisma, row.orgId, row.id);
  await closeMessages(deps, resolved);
  return { acted: true, notice: decidedNotice(resolved), approval: resolved };
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
