import type { ApprovalChannelKind } from '@voice/proto';
import { approvalBlocks } from '../channels/slack.js';
import type { McpDeps } from '../deps.js';
import { type ApprovalRow, type Delivery, deliveriesOf } from '../store/approvals.js';
import { type ChannelRow, listChannels } from '../store/channels.js';
import { requestText, resolvedText } from './approval-texts.js';

/**
 * A messaging app approval requests go to: it sends a request with Approve / Reject buttons to a linked
 * chat, and later edits that message to the outcome, without buttons, so a resolved approval cannot be
 * tapped again.
 */
interface ApprovalNotifier {
  /** Sends the request; the delivery keeps what editing the message later needs. Throws when it was not sent. */
  send(channel: ChannelRow, text: string, approvalId: string): Promise<Delivery>;
  /** Edits a message `send` delivered; one it cannot address (not sent, or the app not configured) is left alone. */
  edit(delivery: Delivery, text: string): Promise<void>;
}

function telegramNotifier(deps: McpDeps): ApprovalNotifier {
  return {
    async send(channel, text, approvalId) {
      if (!deps.telegram) throw new Error('the platform has no Telegram bot configured (TELEGRAM_BOT_TOKEN)');
      const ref = await deps.telegram.sendMessage(channel.target, text, [
        [
          { text: 'Approve', callback_data: `approve:${approvalId}` },
          { text: 'Reject', callback_data: `reject:${approvalId}` },
        ],
      ]);
      return { channel: 'telegram', status: 'sent', error: null, chat_id: ref.chatId, message_id: ref.messageId };
    },
    async edit(delivery, text) {
      if (!deps.telegram || !delivery.chat_id || delivery.message_id === undefined) return;
      await deps.telegram.editMessageText({ chatId: delivery.chat_id, messageId: delivery.message_id }, text);
    },
  };
}

function slackNotifier(deps: McpDeps): ApprovalNotifier {
  return {
    // A channel linked with an incoming webhook is posted to through it (no message to edit later); else the bot posts.
    async send(channel, text, approvalId) {
      const blocks = approvalBlocks(text, approvalId);
      if (channel.webhookUrl) {
        await deps.slack.postWebhook(channel.webhookUrl, text, blocks);
        return { channel: 'slack', status: 'sent', error: null, slack_channel: channel.target };
      }
      const ref = await deps.slack.postMessage(channel.target, text, blocks);
      return { channel: 'slack', status: 'sent', error: null, slack_channel: ref.channel, ts: ref.ts };
    },
    async edit(delivery, text) {
      if (!delivery.slack_channel || !delivery.ts) return;
      await deps.slack.updateMessage({ channel: delivery.slack_channel, ts: delivery.ts }, text);
    },
  };
}

const notifiers: Record<ApprovalChannelKind, (deps: McpDeps) => ApprovalNotifier> = {
  telegram: telegramNotifier,
  slack: slackNotifier,
};

/** Sends the request to every channel the organization linked; returns where it went and how. */
export async function sendRequest(deps: McpDeps, row: ApprovalRow): Promise<Delivery[]> {
  const channels = await listChannels(deps.prisma, row.orgId);
  const text = requestText(row);
  return Promise.all(
    channels.map(async (channel): Promise<Delivery> => {
      try {
        return await notifiers[channel.kind](deps).send(channel, text, row.id);
      } catch (error) {
        deps.logger.warn({ err: error, approval_id: row.id, channel: channel.kind }, 'approval request not delivered');
        return { channel: channel.kind, status: 'failed', error: (error as Error).message };
      }
    }),
  );
}

/** Edits every message the request was sent as, so none keeps live buttons after the approval is resolved. */
export async function closeMessages(deps: McpDeps, row: ApprovalRow): Promise<void> {
  const text = resolvedText(row);
  await Promise.all(
    deliveriesOf(row).map(async (delivery) => {
      try {
        await notifiers[delivery.channel](deps).edit(delivery, text);
      } catch (error) {
        deps.logger.warn({ err: error, approval_id: row.id, channel: delivery.channel }, 'approval message not updated');
      }
    }),
  );
}
