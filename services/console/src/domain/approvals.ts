import type { Bus, Logger } from '@voice/kit';
import { type ApprovalStatus, type ApprovalTool, mcpRpc, type RpcInput } from '@voice/proto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { personIdentity, personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** How many approvals the list shows at a time (older ones through the "Older approvals" link's cursor). */
export const approvalsPerPage = 25;

/**
 * How long the console waits for a decision: approving runs the action (a call to another service and the
 * key's standing, 10 s each at most) and edits the chat messages (5 s) before the mcp service answers. A
 * decision that outlasts it still happens once; asking again then says so.
 */
const decisionTimeoutMs = 30_000;

/**
 * The mcp service's approval operations for one person and request. A decision carries the person's name
 * for `resolved_by`; the mcp service takes the user id and the organization from the identity, and refuses
 * a member (read scope) whatever the console shows.
 */
export async function approvalsFor(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  const call = <D extends (typeof mcpRpc)[keyof typeof mcpRpc]>(operation: D, input: RpcInput<D>, timeoutMs?: number) =>
    ctx.bus.call(operation, identity, input, timeoutMs ? { timeoutMs } : {});
  return {
    page: (filters: { status?: ApprovalStatus | undefined; tool?: ApprovalTool | undefined; cursor?: string }) =>
      call(mcpRpc.listApprovals, { limit: approvalsPerPage, ...filters }),
    get: (id: string) => call(mcpRpc.getApproval, { id }),
    decide: (id: string, decision: 'approve' | 'reject') =>
      call(mcpRpc.decideApproval, { id, decision, approver_name: signedIn.user.name }, decisionTimeoutMs),
    channels: () => call(mcpRpc.channelsOverview, {}),
    /** A one-time code that links the chat it is sent from; the chat id itself is never asked for. */
    startLink: (input: RpcInput<typeof mcpRpc.startChannelLink>) => call(mcpRpc.startChannelLink, input),
    unlink: (kind: 'telegram' | 'slack') => call(mcpRpc.unlinkChannel, { kind }),
  };
}
export type OrganizationApprovals = Awaited<ReturnType<typeof approvalsFor>>;

/**
 * The member an approval is bound to (sent to their MCP client as a URL elicitation), by name, for its page:
 * only they may decide it here. Looked up among this organization's members only; someone who left is
 * shown by id.
 */
export async function boundMemberName(prisma: PrismaClient, orgId: string, userId: string): Promise<string> {
  const membership = await prisma.membership.findFirst({ where: { orgId, userId }, include: { user: { select: { name: true } } } });
  return membership ? `${membership.user.name} (${userId})` : userId;
}

/**
 * How many of the organization's approvals wait for a person, for the navigation. A page never fails for
 * it: without an answer from the mcp service (down, or not deployed) the navigation shows no count.
 */
export async function waitingApprovals(
  ctx: { bus: Bus; logger: Pick<Logger, 'debug'> },
  signedIn: SignedIn,
  requestId: string,
): Promise<number | undefined> {
  try {
    // A read needs no plan; `lite` grants the least.
    // No mcp service listening (not deployed) is no count at once, rather than a page held for the deadline.
    const answer = await ctx.bus.call(
      mcpRpc.countWaiting,
      personIdentity(signedIn, requestId, 'lite'),
      {},
      {
        timeoutMs: countTimeoutMs,
        awaitResponder: false,
      },
    );
    return answer.pending;
  } catch (error) {
    ctx.logger.debug({ err: error }, 'no count of waiting approvals for the navigation');
    return undefined;
  }
}

/** The count is a nicety: a slow mcp service delays a page by this much at most. */
const countTimeoutMs = 1_000;
