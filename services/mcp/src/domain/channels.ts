import { createHash, randomInt } from 'node:crypto';
import { ApiError } from '@voice/kit';
import {
  type ApprovalChannelKind,
  type ApprovalChannelsOverview,
  type ChannelLinkCode,
  gatewayRpc,
  type Identity,
  slackLinkCommand,
  type startChannelLinkSchema,
} from '@voice/proto';
import type { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { insertLinkCode, listChannels, redeemLinkCode, toChannel } from '../store/channels.js';

// Linking a chat: the console shows a one-time code, and the code sent to the bot from a chat links that
// chat. A chat id typed into a form proved nothing (any organization could name any chat, and then read
// and decide its approvals there); a code arriving from the chat proves someone there is on our side.

/** Which kinds this platform can send approval requests to. */
export function availableChannels(deps: McpDeps): ApprovalChannelsOverview['available'] {
  const slack = Boolean(deps.env.SLACK_SIGNING_SECRET);
  return { telegram: deps.telegram !== undefined, slack, slack_bot: slack && Boolean(deps.env.SLACK_BOT_TOKEN) };
}

export async function channelsOverview(deps: McpDeps, orgId: string): Promise<ApprovalChannelsOverview> {
  return { data: (await listChannels(deps.prisma, orgId)).map(toChannel), available: availableChannels(deps) };
}

/** Long enough to open the chat and send it; short enough that a code seen over a shoulder soon expires. */
export const linkCodeTtlMs = 15 * 60_000;
/** Crockford's base32 (no I, L, O, U): 12 characters are 60 random bits, easy to type, valid in a t.me link. */
const codeAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const codeLength = 12;

function newLinkCode(): string {
  return Array.from({ length: codeLength }, () => codeAlphabet[randomInt(codeAlphabet.length)]).join('');
}

/** A code as typed: case and separators do not matter. Only this hash is stored. */
export function linkCodeHash(code: string): string {
  return createHash('sha256').update(code.toUpperCase().replace(/[\s-]/g, '')).digest('hex');
}

/**
 * A link code for the signed-in person's organization (`svc.mcp.channels.start_link`). A person only: an
 * agent's API key must never link a chat it might sit in and then approve its own destructive actions.
 */
export async function startChannelLink(
  deps: McpDeps,
  identity: Identity,
  input: z.output<typeof startChannelLinkSchema>,
): Promise<ChannelLinkCode> {
  if (!identity.user_id) throw new ApiError('forbidden', 'Only a person signed in to the console can link a chat.');
  const available = availableChannels(deps);
  if (input.kind === 'telegram' && !available.telegram)
    throw new ApiError('unavailable', 'This platform has no Telegram bot configured; use Slack, or ask the operator.');
  // Taps need the signing secret; posting needs the bot token, or the channel's own incoming webhook.
  if (input.kind === 'slack' && (!available.slack || (!available.slack_bot && !input.webhook_url))) {
    throw new ApiError('unavailable', 'This platform has no Slack app configured; use Telegram, or ask the operator.');
  }
  // The gateway keeps the organization's name; the chat is told it when the code arrives.
  const organization = await deps.bus.call(gatewayRpc.getOrganization, identity, {});
  const code = newLinkCode();
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + linkCodeTtlMs);
  await insertLinkCode(
    deps.prisma,
    {
      codeHash: linkCodeHash(code),
      orgId: identity.org_id,
      orgName: organization.name,
      kind: input.kind,
      createdBy: identity.user_id,
      webhookUrl: input.webhook_url ?? null,
      expiresAt,
    },
    now,
  );
  const base = { object: 'approval_channel_link_code' as const, kind: input.kind, code, expires_at: expiresAt.toISOString() };
  if (input.kind === 'slack') return { ...base, command: `${slackLinkCommand} ${code}`, deep_link: null };
  // In a group, Telegram passes the bot only commands addressed to it (privacy mode): `/start@<bot>`.
  const username = await deps.telegram?.botUsername().catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'Telegram getMe failed; the link code is shown without the bot name');
    return undefined;
  });
  return username
    ? { ...base, command: `/start@${username} ${code}`, deep_link: `https://t.me/${username}?startgroup=${code}` }
    : { ...base, command: `/start ${code}`, deep_link: null };
}

/**
 * A link code sent from a chat (Telegram `/start <code>`, Slack `/approvals <code>`): links that chat to the
 * code's organization, once. Returns what to answer in the chat; `linked` says whether anything changed.
 */
export async function linkFromChat(
  deps: McpDeps,
  input: { kind: ApprovalChannelKind; code: string; target: string; actor: string },
): Promise<{ linked: boolean; reply: string }> {
  const now = deps.now();
  const outcome = await redeemLinkCode(deps.prisma, {
    codeHash: linkCodeHash(input.code),
    kind: input.kind,
    target: input.target,
    linkedBy: input.actor,
    now,
  });
  const again = 'Ask for a new code on the console’s Approvals page (/dashboard/approvals).';
  if ('refused' in outcome) {
    deps.logger.info({ kind: input.kind, target: input.target, refused: outcome.refused }, 'link code refused');
    const reason =
      outcome.refused === 'used'
        ? 'This link code was already used; a code links one chat, once.'
        : outcome.refused === 'expired'
          ? `This link code expired at ${outcome.code?.expiresAt.toISOString()}.`
          : 'This is not a link code of this platform.';
    return { linked: false, reply: `${reason} Nothing was linked. ${again}` };
  }
  const { code } = outcome;
  deps.logger.info({ org_id: code.orgId, kind: input.kind, target: input.target, by: input.actor }, 'chat linked');
  return {
    linked: true,
    reply:
      `Linked: approval requests of the organization “${code.orgName}” (${code.orgId}) now come to this chat, ` +
      'and Approve or Reject here decides them. An owner or admin can unlink it on the console’s Approvals page.',
  };
}
