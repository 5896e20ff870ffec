import { timingSafeEqual } from 'node:crypto';
import { ApiError, type HttpApp } from '@voice/kit';
import { idSchema } from '@voice/proto';
import { telegramUpdateSchema } from '../channels/telegram.js';
import type { McpDeps } from '../deps.js';
import { decide } from '../domain/approvals.js';

const callbackDataPattern = /^(approve|reject):(apr_[0-9A-Za-z]{8,40})$/;

function secretMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Telegram updates (https://core.telegram.org/bots/api#setwebhook), verified by the secret token Telegram
 * sends in X-Telegram-Bot-Api-Secret-Token. Only button taps on approval requests are acted on.
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
      // Other updates (messages, members joining) are acknowledged and ignored, so Telegram does not resend them.
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
        actor: `telegram:${from.username ? `@${from.username}` : (from.first_name ?? 'user')} (id ${from.id})`,
      });
      await deps.telegram
        .answerCallbackQuery(query.id, outcome.notice, !outcome.acted)
        .catch((error: unknown) => request.log.warn({ err: error }, 'answerCallbackQuery failed'));
      return { ok: true };
    },
  );
}
