// What each operation of `mcpRpc` does, over REST and NATS alike: approvals and their channels, for the
// REST API and the console, plus the console's own decision (a third way to approve beside the Telegram
// and Slack taps). The organization is always the identity's.
import type { OperationHandlers } from '@voice/kit';
import type { mcpRpc } from '@voice/proto';
import type { McpDeps } from './deps.js';
import { decideInConsole } from './domain/approvals.js';
import { channelsOverview, startChannelLink } from './domain/channels.js';
import { countWaiting, findApproval, listApprovals, toApproval } from './store/approvals.js';
import { deleteChannel, listChannels, toChannel } from './store/channels.js';

export function mcpOperations(deps: McpDeps): OperationHandlers<typeof mcpRpc> {
  const { prisma } = deps;
  return {
    listApprovals: (input, identity) => listApprovals(prisma, identity.org_id, input, deps.now()),
    getApproval: async ({ id }, identity) => toApproval(await findApproval(prisma, identity.org_id, id), deps.now()),
    countWaiting: async (_input, identity) => ({
      object: 'approval_count' as const,
      pending: await countWaiting(prisma, identity.org_id, deps.now()),
    }),
    decideApproval: (input, identity) => decideInConsole(deps, identity, input),
    listChannels: async (_input, identity) => ({ data: (await listChannels(prisma, identity.org_id)).map(toChannel) }),
    channelsOverview: (_input, identity) => channelsOverview(deps, identity.org_id),
    startChannelLink: (input, identity) => startChannelLink(deps, identity, input),
    unlinkChannel: async ({ kind }, identity) => {
      await deleteChannel(prisma, identity.org_id, kind);
      return { object: 'approval_channel' as const, kind, deleted: true as const };
    },
  };
}
