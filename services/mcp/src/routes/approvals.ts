import { ApiError, type HttpApp, identityOf } from '@voice/kit';
import {
  approvalChannelKinds,
  approvalChannelListSchema,
  approvalChannelSchema,
  approvalIdParamsSchema,
  approvalPageSchema,
  approvalSchema,
  deletedApprovalChannelSchema,
  errorEnvelopeSchema,
  listApprovalsQuerySchema,
  putSlackChannelSchema,
  putTelegramChannelSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { findApproval, listApprovals, toApproval } from '../store/approvals.js';
import { deleteChannel, listChannels, toChannel, upsertChannel } from '../store/channels.js';

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
      config: { scope: 'read' },
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
      config: { scope: 'read' },
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
      config: { scope: 'read-write' },
    },
    async (request) => {
      if (!deps.telegram)
        throw new ApiError('unavailable', 'This platform has no Telegram bot configured; use Slack, or ask the operator.');
      return toChannel(await upsertChannel(deps.prisma, identityOf(request).org_id, 'telegram', request.body.chat_id, null));
    },
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
      config: { scope: 'read-write' },
    },
    async (request) => {
      if (!deps.env.SLACK_SIGNING_SECRET || (!deps.env.SLACK_BOT_TOKEN && !request.body.webhook_url)) {
        throw new ApiError('unavailable', 'This platform has no Slack app configured; use Telegram, or ask the operator.');
      }
      const { channel_id, webhook_url } = request.body;
      return toChannel(await upsertChannel(deps.prisma, identityOf(request).org_id, 'slack', channel_id, webhook_url ?? null));
    },
  );

  app.delete(
    '/api/v1/approvals/channels/:kind',
    {
      schema: {
        tags: ['approvals'],
        summary: 'Stop sending approval requests to this channel',
        params: z.object({ kind: z.enum(approvalChannelKinds) }),
        response: { 200: deletedApprovalChannelSchema, 404: errorEnvelopeSchema },
      },
      config: { scope: 'read-write' },
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
      config: { scope: 'read' },
    },
    async (request) => toApproval(await findApproval(deps.prisma, identityOf(request).org_id, request.params.id), deps.now()),
  );
}
