import { timingSafeEqual } from 'node:crypto';
import { ApiError, type HttpApp } from '@voice/kit';
import { idSchema } from '@voice/proto';
import { type TelegramUpdate, type TelegramUser, telegramUpdateSchema } from '../channels/telegram.js';
import type { McpDeps } from '../deps.js';
import { decide } from '../domain/approvals.js';
import { linkFromChat } from '../domain/channels.js';

const callbackDataPattern = /^(approve|reject):(apr_[0-9A-Za-z]{8,40})$/;
/**
 * `/start <code>` (what a t.me `?startgroup=` link sends) or `/link <code>`, optionally addressed
 * `/start@<bot>`: in a group with privacy mode Telegram passes only commands, and one addressed to another
 * bot is not ours.
 */
const linkCommandPattern = /^\/(?:start|link)(?:@([A-Za-z0-9_]{1,64}))?(?:\s+(\S{1,64}))?\s*$/;

const telegramActor = (from: TelegramUser | undefined) =>
  from ? `telegram:${from.username ? `@${from.username}` : (from.first_name ?? 'user')} (id ${from.id})` : 'telegram:unknown';

/**
 * A link code sent from a chat: links that chat. Returns the answer for the chat; other messages get none.
 * A failure to link is thrown, so Telegram sends the update again.
 */
async function linkCodeReply(
  deps: McpDeps,
  bot: NonNullable<McpDeps['telegram']>,
  message: NonNullable<TelegramUpdate['message']>,
): Promise<string | undefined> {
  const match = linkCommandPattern.exec(message.text?.trim() ?? '');
  if (!match) return undefined;
  const [, addressee, code] = match;
  if (addressee && addressee.toLowerCase() !== (await bot.botUsername()).toLowerCase()) return undefined;
  if (!code) {
    return 'To send an organization’s approval requests here, ask for a link code on the console’s Approvals page and send it here: /start <code>.';
  }
  return (await linkFromChat(deps, { kind: 'telegram', code, target: String(message.chat.id), actor: telegramActor(message.from) })).reply;
}

function secretMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Telegram updates (https://core.telegram.org/bots/api#setwebhook), verified by the secret token Telegram
 * sends in X-Telegram-Bot-Api-Secret-Token. Acted on: button taps on approval requests, and link codes
 * sent from a chat.
 */
export function telegramHookRoutes(app: HttpApp, deps: McpDeps): void {
  app.post(
    '/api/hooks/telegram',
    {
      schema: { hide: true },
      config: { public: true },
      // The token is checked when the request arrives, before its body is read: a caller without it gets
      // nothing of ours to run on what it sends.
      onRequest: (request, _reply, done) => {
        if (secretMatches(deps.env.TELEGRAM_WEBHOOK_SECRET, request.headers['x-telegram-bot-api-secret-token'])) done();
        else done(new ApiError('unauthenticated', 'Not a Telegram update: the secret token is missing or wrong.'));
      },
    },
    async (request) => {
      const parsed = telegramUpdateSchema.safeParse(request.body);
      if (!parsed.success) throw new ApiError('invalid_request', 'Not a Telegram update.');
      const query = parsed.data.callback_query;
      const message = parsed.data.message;
      if (message && deps.telegram) {
        const reply = await linkCodeReply(deps, deps.telegram, message);
        if (reply) {
          await deps.telegram
            .sendText(String(message.chat.id), reply)
            .catch((error: unknown) => request.log.warn({ err: error }, 'link code answer not sent'));
        }
        return { ok: true };
      }
      // Other updates (members joining, edits) are acknowledged and ignored, so Telegram does not resend them.
      if (!query || !deps.telegram) return { ok: true };
      const match = callbackDataPattern.exec(query.data ?? '');
      const approvalId = match?.[2];
      if (!match || !approvalId || !idSchema('approval').safeParse(approvalId).success || !query.message) {
        await deps.telegram.answerCallbackQuery(query.id, 'Unknown button; nothing was done.', true);
        return { ok: true };
      }
      const from = query.from;
      const outcome = await decide(deps, {
        approvalId,
        decision: match[1] === 'approve' ? 'approve' : 'reject',
        via: 'telegram',
        target: String(query.message.chat.id),
        actor: telegramActor(from),
      });
      await deps.telegram
        .answerCallbackQuery(query.id, outcome.notice, !outcome.acted)
        .catch((error: unknown) => request.log.warn({ err: error }, 'answerCallbackQuery failed'));
      return { ok: true };
    },
  );
}
