import { mcpRpc } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { decideInConsole } from '../domain/approvals.js';
import { channelsOverview, linkSlack, linkTelegram } from '../domain/channels.js';
import { countWaiting, findApproval, listApprovals, toApproval } from '../store/approvals.js';
import { deleteChannel } from '../store/channels.js';

/**
 * Approvals and their channels for the console: each handler calls what the REST route calls, plus the
 * console's own decision (a third way to approve beside the Telegram and Slack taps). `bus.serve` checks
 * each one's scope; the organization is always the identity's.
 */
export function serveMcpRpc(deps: McpDeps): void {
  const { bus, prisma } = deps;
  bus.serve(mcpRpc.listApprovals, (input, identity) => listApprovals(prisma, identity.org_id, input, deps.now()));
  bus.serve(mcpRpc.getApproval, async ({ id }, identity) => toApproval(await findApproval(prisma, identity.org_id, id), deps.now()));
  bus.serve(mcpRpc.countWaiting, async (_input, identity) => ({
    object: 'approval_count' as const,
    pending: await countWaiting(prisma, identity.org_id, deps.now()),
  }));
  bus.serve(mcpRpc.decideApproval, (input, identity) => decideInConsole(deps, identity, input));
  bus.serve(mcpRpc.listChannels, (_input, identity) => channelsOverview(deps, identity.org_id));
  bus.serve(mcpRpc.linkTelegram, ({ chat_id }, identity) => linkTelegram(deps, identity.org_id, chat_id));
  bus.serve(mcpRpc.linkSlack, (input, identity) => linkSlack(deps, identity.org_id, input));
  bus.serve(mcpRpc.unlinkChannel, async ({ kind }, identity) => {
    await deleteChannel(prisma, identity.org_id, kind);
    return { object: 'approval_channel' as const, kind, deleted: true as const };
  });
}
