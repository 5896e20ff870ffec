import { ApiError } from '@voice/kit';
import type { ApprovalChannel, ApprovalChannelsOverview, putSlackChannelSchema } from '@voice/proto';
import type { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { listChannels, toChannel, upsertChannel } from '../store/channels.js';

// The channel changes of the REST routes and the console's NATS operations: one statement of what the
// platform must have configured for each kind.

/** Which kinds this platform can send approval requests to. */
export function availableChannels(deps: McpDeps): ApprovalChannelsOverview['available'] {
  const slack = Boolean(deps.env.SLACK_SIGNING_SECRET);
  return { telegram: deps.telegram !== undefined, slack, slack_bot: slack && Boolean(deps.env.SLACK_BOT_TOKEN) };
}

export async function channelsOverview(deps: McpDeps, orgId: string): Promise<ApprovalChannelsOverview> {
  return { data: (await listChannels(deps.prisma, orgId)).map(toChannel), available: availableChannels(deps) };
}

export async function linkTelegram(deps: McpDeps, orgId: string, chatId: string): Promise<ApprovalChannel> {
  if (!availableChannels(deps).telegram)
    throw new ApiError('unavailable', 'This platform has no Telegram bot configured; use Slack, or ask the operator.');
  return toChannel(await upsertChannel(deps.prisma, orgId, 'telegram', chatId, null));
}

export async function linkSlack(deps: McpDeps, orgId: string, input: z.output<typeof putSlackChannelSchema>): Promise<ApprovalChannel> {
  const available = availableChannels(deps);
  // Taps need the signing secret; posting needs the bot token, or the channel's own incoming webhook.
  if (!available.slack || (!available.slack_bot && !input.webhook_url)) {
    throw new ApiError('unavailable', 'This platform has no Slack app configured; use Telegram, or ask the operator.');
  }
  return toChannel(await upsertChannel(deps.prisma, orgId, 'slack', input.channel_id, input.webhook_url ?? null));
}
