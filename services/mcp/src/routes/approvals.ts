import { type HttpApp, identityOf } from '@voice/kit';
import {
  approvalChannelKindParamsSchema,
  approvalChannelListSchema,
  approvalChannelSchema,
  approvalIdParamsSchema,
  approvalPageSchema,
  approvalSchema,
  deletedApprovalChannelSchema,
  errorEnvelopeSchema,
  listApprovalsQuerySchema,
  mcpRpc,
  putSlackChannelSchema,
  putTelegramChannelSchema,
} from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { linkSlack, linkTelegram } from '../domain/channels.js';
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

  app.put(
    '/api/v1/approvals/channels/telegram',
    {
      schema: {
        tags: ['approvals'],
        summary: 'Send approval requests to a Telegram chat (the platform bot must be a member)',
        body: putTelegramChannelSchema,
        response: { 200: approvalChannelSchema, 400: errorEnvelopeSchema },
      },
      config: { operation: mcpRpc.linkTelegram },
    },
    async (request) => linkTelegram(deps, identityOf(request).org_id, request.body.chat_id),
  );

  app.put(
    '/api/v1/approvals/channels/slack',
    {
      schema: {
        tags: ['approvals'],
        summary: 'Send approval requests to a Slack channel (with the bot, or through an incoming webhook)',
        body: putSlackChannelSchema,
        response: { 200: approvalChannelSchema, 400: errorEnvelopeSchema },
      },
      config: { operation: mcpRpc.linkSlack },
    },
    async (request) => linkSlack(deps, identityOf(request).org_id, request.body),
  );

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
