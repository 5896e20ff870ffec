import { z } from 'zod';

/** An inline keyboard button: what the person sees, and the callback data Telegram sends back on a tap. */
export interface InlineButton {
  text: string;
  callback_data: string;
}

export interface TelegramMessageRef {
  chatId: string;
  messageId: number;
}

export class TelegramError extends Error {
  override readonly name = 'TelegramError';
  constructor(
    message: string,
    readonly errorCode: number | undefined,
  ) {
    super(message);
  }
}

const responseSchema = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  description: z.string().optional(),
  error_code: z.number().optional(),
});

const sentMessageSchema = z.object({ message_id: z.number().int(), chat: z.object({ id: z.union([z.number(), z.string()]) }) });

const userSchema = z.object({ id: z.number().int(), username: z.string().optional(), first_name: z.string().optional() });
export type TelegramUser = z.infer<typeof userSchema>;

/**
 * The parts of an Update (https://core.telegram.org/bots/api#update) this service acts on: button taps, and
 * messages (a link code sent with `/start` or `/link`).
 */
export const telegramUpdateSchema = z.object({
  update_id: z.number().int(),
  message: z
    .object({
      message_id: z.number().int(),
      chat: z.object({ id: z.union([z.number().int(), z.string()]) }),
      from: userSchema.optional(),
      text: z.string().optional(),
    })
    .optional(),
  callback_query: z
    .object({
      id: z.string(),
      from: userSchema,
      message: z.object({ message_id: z.number().int(), chat: z.object({ id: z.union([z.number().int(), z.string()]) }) }).optional(),
      data: z.string().optional(),
    })
    .optional(),
});
export type TelegramUpdate = z.infer<typeof telegramUpdateSchema>;

/**
 * A thin client of the Telegram Bot API (`POST {base}/bot<token>/<method>` with a JSON body, answered with
 * `{ok, result}` or `{ok: false, description}`). Plain text messages: no parse mode, so nothing in a summary
 * can break the markup.
 */
export class TelegramBot {
  /** The bot's username, asked once (getMe): it does not change while the token is the same. */
  private username: Promise<string> | undefined;

  constructor(private readonly options: { token: string; apiBaseUrl: string; timeoutMs: number }) {}

  private async call(method: string, body: Record<string, unknown>): Promise<unknown> {
    const url = `${this.options.apiBaseUrl.replace(/\/$/, '')}/bot${this.options.token}/${method}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      // The URL holds the bot token; the error names the method only.
      throw new TelegramError(`Telegram ${method} did not answer (${(error as Error).name})`, undefined);
    }
    const parsed = responseSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success)
      throw new TelegramError(`Telegram ${method} answered HTTP ${response.status} without a Bot API body`, response.status);
    if (!parsed.data.ok) {
      throw new TelegramError(`Telegram ${method} failed: ${parsed.data.description ?? `HTTP ${response.status}`}`, parsed.data.error_code);
    }
    return parsed.data.result;
  }

  async sendMessage(chatId: string, text: string, buttons: InlineButton[][]): Promise<TelegramMessageRef> {
    const result = sentMessageSchema.parse(
      await this.call('sendMessage', {
        chat_id: chatId,
        text,
        reply_markup: { inline_keyboard: buttons },
        link_preview_options: { is_disabled: true },
      }),
    );
    return { chatId: String(result.chat.id), messageId: result.message_id };
  }

  /** A plain message without buttons. */
  async sendText(chatId: string, text: string): Promise<void> {
    await this.call('sendMessage', { chat_id: chatId, text, link_preview_options: { is_disabled: true } });
  }

  /** The bot's @username (without the @), for t.me links and `/start@<bot>`; a failed call is asked again next time. */
  botUsername(): Promise<string> {
    this.username ??= this.call('getMe', {}).then(
      (result) => z.object({ username: z.string() }).parse(result).username,
      (error: unknown) => {
        this.username = undefined;
        throw error;
      },
    );
    return this.username;
  }

  /** Replaces the message's text and removes its buttons, so a resolved approval cannot be tapped again. */
  async editMessageText(ref: TelegramMessageRef, text: string): Promise<void> {
    await this.call('editMessageText', {
      chat_id: ref.chatId,
      message_id: ref.messageId,
      text,
      reply_markup: { inline_keyboard: [] },
    });
  }

  /** Ends the tapping person's spinner with a short notice; `alert` shows it as a dialog. */
  async answerCallbackQuery(callbackQueryId: string, text: string, alert = false): Promise<void> {
    await this.call('answerCallbackQuery', { callback_query_id: callbackQueryId, text: text.slice(0, 200), show_alert: alert });
  }
}
