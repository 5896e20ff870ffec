import { livemodeOf } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import type { ApprovalRow, Delivery } from '../store/approvals.js';
import { canonicalJson } from './canonical.js';

// What people and agents are told about an approval: the request a chat shows, the same message once resolved,
// where to decide, and the notice a decision gets back. Wording only; what happens is approvals.ts.

/**
 * What starts every text about a test credential's approval (chats, e-mail, the agent's answers): a test
 * approval still asks a person, who must never take it for live work, nor a live one for a test.
 */
export const testModeMark = '[TEST MODE]';

/**
 * The text, marked unless the approval is live: `livemode` of its record, or `livemodeOf` its organization
 * (a test twin's id alone says test, mode.ts).
 */
export function markedForMode(livemode: boolean, text: string): string {
  return livemode ? text : `${testModeMark} ${text}`;
}

/** The chat's line saying what a test approval touches; nothing for a live one. */
function modeLines(row: ApprovalRow): string[] {
  return livemodeOf(row.orgId) ? [] : ['Test mode: asked with a test credential; the action changes test data only.'];
}

function approvalText(row: ApprovalRow, heading: string): string {
  return [
    markedForMode(livemodeOf(row.orgId), `${heading}: ${row.summary}`),
    ...modeLines(row),
    '',
    `Tool: ${row.tool}`,
    `Arguments: ${canonicalJson(row.arguments)}`,
    `Digest: ${row.argumentsDigest.slice(0, 16)}`,
    `Asked by API key ${row.requestedBy}`,
    `Expires: ${row.expiresAt.toISOString()}`,
    `Id: ${row.id}`,
  ].join('\n');
}

/** The request as a chat shows it, with Approve / Reject buttons under it. */
export function requestText(row: ApprovalRow): string {
  return approvalText(row, 'Approval needed');
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

/** The request's message once resolved (its buttons gone): the request, then what came of it. */
export function resolvedText(row: ApprovalRow): string {
  return `${approvalText(row, 'Approval request')}\n\n${outcomeLine(row)}`;
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

/** The agent's answer to a new request: nothing done yet, and where a person may approve it. */
export function requestedSummary(deps: McpDeps, row: ApprovalRow, sent: Delivery[]): string {
  return markedForMode(
    livemodeOf(row.orgId),
    `Nothing was done yet. Once a person approves ${whereToDecide(deps, row.id, sent)}: ${row.summary} See service_get_approval for the outcome.`,
  );
}

/** The agent's answer when the same action is already waiting: nothing was sent again. */
export function alreadyWaitingSummary(deps: McpDeps, waiting: ApprovalRow, sent: Delivery[]): string {
  return markedForMode(
    livemodeOf(waiting.orgId),
    `Nothing was done yet, and nothing was sent again: the same action has been waiting for approval ${whereToDecide(deps, waiting.id, sent)} since ${waiting.createdAt.toISOString()}. Once approved: ${waiting.summary}`,
  );
}

/** What a tap on an approval id that does not exist is told. */
export const unknownApprovalNotice = 'Unknown approval; nothing was done.';

/** What a tap from a chat other than the one the approval's organization linked is told. */
export const unlinkedChatNotice = 'This chat is not linked to the organization that asked for this approval; nothing was done.';

/** What a decision that came too late is told: the approval had expired (and is now marked so). */
export function expiredNotice(row: ApprovalRow): string {
  return `This approval expired at ${row.expiresAt.toISOString()}; nothing was done.`;
}

/** What a decision that found the approval already decided (or expired) is told. */
export function alreadyDecidedNotice(current: ApprovalRow): string {
  const by = current.resolvedBy ? ` by ${current.resolvedBy}` : '';
  return current.status === 'approved'
    ? `Already approved${by} and running; nothing more was done.`
    : current.status === 'expired'
      ? 'This approval expired; nothing was done.'
      : `Already ${current.status}${by}; nothing was done this time.`;
}

/** What the decision that resolved the approval is told: what came of it. */
export function decidedNotice(resolved: ApprovalRow): string {
  return resolved.status === 'executed'
    ? 'Approved: done.'
    : resolved.status === 'failed'
      ? `Approved, but the action failed: ${resolved.errorCode}: ${resolved.errorMessage}`
      : 'Rejected: nothing was done.';
}
