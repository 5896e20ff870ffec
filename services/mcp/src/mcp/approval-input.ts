import { createHmac } from 'node:crypto';
import {
  type CallToolResult,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Approval, type Identity, type PendingApproval, scopeAllows } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { consoleApprovalUrl } from '../domain/approval-texts.js';
import { bindApproval, findApproval, toApproval } from '../store/approvals.js';
import { aborted, elicitationMessage, finishedStatuses, pause } from './elicitation.js';
import { clientCapabilities } from './envelope.js';
import { taskResult } from './tasks.js';

/**
 * Approvals for 2026-07-28 clients: a multi-round-trip `tools/call` (spec, basic/patterns/mrtr). The
 * first round asks for the approval as the tool always does, binds it to the credential's owner, and
 * answers `input_required` with a URL elicitation of the approval's console page. The client shows it,
 * then sends the call again with the answer and the signed `requestState`; that follow-up, on any
 * replica, waits for the person's decision in the database (up to APPROVAL_ELICITATION_WAIT_MS) and
 * returns the outcome, as a task's result would be, or pending_approval when nobody decided yet.
 *
 * Nothing waits in memory between the rounds: the state names the approval, and the approval row is the
 * truth, so a tap in Telegram or Slack ends the wait as well as the console does.
 */

/** The key the embedded elicitation is filed under in `inputRequests` / `inputResponses`. */
const inputKey = 'approval';

/** What the follow-up needs, signed (not encrypted: the client may read it, and nothing in it is secret). */
interface ApprovalState {
  approval_id: string;
  tool: string;
  /** The credential that asked: a follow-up with another one is refused. */
  org_id: string;
  key_id: string;
  /** The first round's pending_approval result, returned again when nobody decided in time. */
  pending: PendingApproval;
}

export type ApprovalStateCodec = RequestStateCodec<ApprovalState>;

/**
 * The codec of approval states: an HMAC key derived from the internal signing secret (every replica has
 * it; production refuses the development value) under a label of its own, valid as long as an approval.
 */
export function approvalStateCodec(deps: McpDeps): ApprovalStateCodec {
  const key = createHmac('sha256', deps.env.INTERNAL_SIGNING_SECRET).update('mcp-request-state/v1').digest();
  return createRequestStateCodec<ApprovalState>({ key, ttlSeconds: 7 * 24 * 3600 });
}

/**
 * Whether this call's approval is asked for as URL input: the client declared URL elicitation on this
 * request, and the credential belongs to a person (the spec binds a URL elicitation to the user it is shown
 * to; a key the admin CLI made belongs to nobody, so its approvals only go to the channels).
 */
export function asksByUrl(ctx: ServerContext, identity: Identity, readonly: boolean): boolean {
  const elicitation = clientCapabilities(ctx)?.elicitation as { url?: unknown } | undefined;
  return elicitation?.url !== undefined && identity.owner_user_id !== undefined && !readonly && scopeAllows(identity.scope, 'read-write');
}

/** The first round: the pending approval, bound to the credential's owner, as a URL elicitation. */
export async function askForApproval(
  deps: McpDeps,
  codec: ApprovalStateCodec,
  identity: Identity,
  tool: string,
  pending: CallToolResult,
): Promise<CallToolResult | InputRequiredResult> {
  const structured = pending.structuredContent as PendingApproval | undefined;
  if (pending.isError || structured?.status !== 'pending_approval' || !identity.owner_user_id) return pending;
  const bound = await bindApproval(deps.prisma, identity.org_id, structured.approval_id, identity.owner_user_id);
  // Bound to someone else already (it cannot be here: the approval is new), or gone: the channels have it.
  if (!bound) return pending;
  const state: ApprovalState = {
    approval_id: structured.approval_id,
    tool,
    org_id: identity.org_id,
    key_id: identity.key_id,
    pending: structured,
  };
  return inputRequired({
    inputRequests: {
      [inputKey]: inputRequired.elicitUrl({
        url: consoleApprovalUrl(deps, structured.approval_id),
        message: elicitationMessage(toApproval(bound, deps.now())),
      }),
    },
    requestState: await codec.mint(state),
  });
}

/**
 * The follow-up round: the state must be this credential's and this tool's. A decline or cancel (or no
 * answer) ends it with pending_approval at once; an accept means the page was opened, so it waits for the
 * decision in the database.
 */
export async function approvalFollowUp(
  deps: McpDeps,
  ctx: ServerContext,
  identity: Identity,
  tool: string,
  state: ApprovalState,
): Promise<CallToolResult> {
  if (state.tool !== tool || state.org_id !== identity.org_id || state.key_id !== identity.key_id) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This requestState belongs to another call.');
  }
  const pending: CallToolResult = {
    structuredContent: { ...state.pending },
    content: [{ type: 'text', text: JSON.stringify(state.pending) }],
  };
  const answer = ctx.mcpReq.inputResponses?.[inputKey] as { action?: unknown } | undefined;
  const accepted = answer?.action === 'accept';
  const until = Date.now() + (accepted ? deps.env.APPROVAL_ELICITATION_WAIT_MS : 0);
  for (;;) {
    const approval: Approval = toApproval(await findApproval(deps.prisma, identity.org_id, state.approval_id), deps.now());
    if (finishedStatuses.has(approval.status)) return taskResult(approval);
    const left = until - Date.now();
    if (left <= 0 || ctx.mcpReq.signal.aborted) return pending;
    await pause(Math.min(left, deps.env.APPROVAL_TASK_POLL_MS), [aborted(ctx.mcpReq.signal)]);
  }
}
