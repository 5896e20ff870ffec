import { newId } from '@voice/kit';
import type { ApprovalTool, Identity, PendingApproval } from '@voice/proto';
import { inBackground, type McpDeps } from '../deps.js';
import {
  type ApprovalRow,
  type Delivery,
  deliveriesOf,
  findApproval,
  findWaiting,
  insertApproval,
  saveDeliveries,
} from '../store/approvals.js';
import { approvalActions, callerFor } from './approval-actions.js';
import { recordApprovalEvent } from './approval-events.js';
import { mailApprovers } from './approval-mail.js';
import { sendRequest } from './approval-notifiers.js';
import { alreadyWaitingSummary, consoleApprovalUrl, requestedSummary } from './approval-texts.js';
import { argumentsDigest } from './canonical.js';
import { withEvents } from './events.js';

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
    return pendingApproval(deps, waiting, sentTo, alreadyWaitingSummary(deps, waiting, sentTo));
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
  const deliveries = await sendRequest(deps, row);
  const sent = deliveries.filter((delivery) => delivery.status === 'sent');
  await withEvents(deps, async (tx, events) => {
    await saveDeliveries(tx, row.orgId, row.id, deliveries);
    recordApprovalEvent(events, 'approval.requested', await findApproval(tx, row.orgId, row.id), now);
  });
  // Stored and announced first; the e-mails go out after the answer, so a slow or absent SMTP server (or
  // console) never delays or fails the tool call. A failure is logged.
  inBackground(deps, 'approval e-mail', () => mailApprovers(deps, identity, row, consoleApprovalUrl(deps, row.id)));
  return pendingApproval(deps, row, sent, requestedSummary(deps, row, sent));
}

/** The tool's answer while an approval waits: where it went, and what the agent is told. */
function pendingApproval(deps: McpDeps, row: ApprovalRow, sent: Delivery[], summary: string): PendingApproval {
  return {
    status: 'pending_approval',
    approval_id: row.id,
    expires_at: row.expiresAt.toISOString(),
    summary,
    sent_to: [...new Set(sent.map((delivery) => delivery.channel))],
    console_url: consoleApprovalUrl(deps, row.id),
  };
}
