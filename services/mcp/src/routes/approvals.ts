import { ApiError, type HttpApp, identityOf } from '@voice/kit';
import {
  approvalChannelKindParamsSchema,
  approvalChannelListSchema,
  approvalIdParamsSchema,
  approvalPageSchema,
  approvalSchema,
  deletedApprovalChannelSchema,
  errorEnvelopeSchema,
  listApprovalsQuerySchema,
  mcpRpc,
} from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { findApproval, listApprovals, toApproval } from '../store/approvals.js';
import { deleteChannel, listChannels, toChannel } from '../store/channels.js';

export function approvalRoutes(app: HttpApp, deps: McpDeps): void {
  app.get(
    '/api/v1/approvals',
    {
      schema: {
        tags: ['approvals'],
        summary: 'List approvals of destructive MCP actions, newest first',
        querystring: listApprovalsQuerySchema,
        response: { 200: approvalPageSchema },
      },
      config: { operation: mcpRpc.listApprovals },
    },
    async (request) => listApprovals(deps.prisma, identityOf(request).org_id, request.query, deps.now()),
  );

  app.get(
    '/api/v1/approvals/channels',
    {
      schema: {
        tags: ['approvals'],
        summary: 'The messaging channels approval requests are sent to',
        response: { 200: approvalChannelListSchema },
      },
      config: { operation: mcpRpc.listChannels },
    },
    async (request) => ({ data: (await listChannels(deps.prisma, identityOf(request).org_id)).map(toChannel) }),
  );

  // Linking by a chat or channel id proved nothing: any organization could name another's chat, then send
  // its approval requests there and have taps there decide them. A person links a chat in the console, by
  // sending a one-time code from it. The old routes say so, rather than an unexplained 404.
  for (const kind of ['telegram', 'slack'] as const) {
    app.put(`/api/v1/approvals/channels/${kind}`, { schema: { hide: true } }, async () => {
      throw new ApiError(
        'forbidden',
        `A ${kind === 'telegram' ? 'chat' : 'channel'} is no longer linked by its id. An owner or admin links it on the console’s ` +
          'Approvals page (/dashboard/approvals): it shows a one-time code to send to the bot from that chat.',
      );
    });
  }

  app.delete(
    '/api/v1/approvals/channels/:kind',
    {
      schema: {
        tags: ['approvals'],
        summary: 'Stop sending approval requests to this channel',
        params: approvalChannelKindParamsSchema,
        response: { 200: deletedApprovalChannelSchema, 404: errorEnvelopeSchema },
      },
      config: { operation: mcpRpc.unlinkChannel },
    },
    async (request) => {
      await deleteChannel(deps.prisma, identityOf(request).org_id, request.params.kind);
      return { object: 'approval_channel' as const, kind: request.params.kind, deleted: true as const };
    },
  );

  app.get(
    '/api/v1/approvals/:id',
    {
      schema: {
        tags: ['approvals'],
        summary: 'One approval and its outcome',
        params: approvalIdParamsSchema,
        response: { 200: approvalSchema, 404: errorEnvelopeSchema },
      },
      config: { operation: mcpRpc.getApproval },
    },
    async (request) => toApproval(await findApproval(deps.prisma, identityOf(request).org_id, request.params.id), deps.now()),
  );
}
