import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export class SlackError extends Error {
  override readonly name = 'SlackError';
}

export interface SlackMessageRef {
  channel: string;
  ts: string;
}

/** Slack refuses requests whose timestamp is further than this from now (replay protection). */
export const slackMaxSkewSeconds = 5 * 60;

/**
 * Verifies a request from Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:{timestamp}:{raw body}">`
 * with the app's signing secret, and `X-Slack-Request-Timestamp` within five minutes of now.
 * https://api.slack.com/authentication/verifying-requests-from-slack
 */
export function verifySlackSignature(
  signingSecret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  now: Date,
): { ok: true } | { ok: false; reason: string } {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return { ok: false, reason: 'signature headers missing' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'timestamp malformed' };
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > slackMaxSkewSeconds) return { ok: false, reason: 'timestamp too old' };
  const match = /^v0=([0-9a-f]{64})$/.exec(signature);
  if (!match?.[1]) return { ok: false, reason: 'signature malformed' };
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(match[1], 'hex'))) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}

/** The parts of a `block_actions` interaction payload this service acts on. */
export const slackInteractionSchema = z.object({
  type: z.string(),
  user: z.object({ id: z.string(), username: z.string().optional(), name: z.string().optional() }),
  channel: z.object({ id: z.string() }).optional(),
  team: z.object({ id: z.string() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() })).default([]),
  response_url: z.string().optional(),
});
export type SlackInteraction = z.infer<typeof slackInteractionSchema>;

/** The fields of a slash command request (https://api.slack.com/interactivity/slash-commands) used here. */
export const slackCommandSchema = z.object({
  command: z.string(),
  text: z.string().default(''),
  channel_id: z.string().min(1),
  user_id: z.string().min(1),
  user_name: z.string().optional(),
});

/**
 * A slash command's answer: plain text (`&`, `<`, `>` escaped, so an organization's name cannot mention
 * @channel or link anywhere), seen by the whole channel when `inChannel`, else by the sender only.
 */
export function slackText(text: string, inChannel = false): { response_type: 'in_channel' | 'ephemeral'; text: string } {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return { response_type: inChannel ? 'in_channel' : 'ephemeral', text: escaped };
}

const apiResponseSchema = z.object({
  ok: z.boolean(),
  error: z.string().optional(),
  ts: z.string().optional(),
  channel: z.string().optional(),
});

/** Message blocks: the summary, then Approve / Reject buttons whose value is the approval id only. */
export function approvalBlocks(text: string, approvalId: string | undefined): unknown[] {
  const blocks: unknown[] = [{ type: 'section', text: { type: 'plain_text', text: text.slice(0, 3000) } }];
  if (approvalId) {
    blocks.push({
      type: 'actions',
      block_id: 'approval',
      elements: [
        {
          type: 'button',
          action_id: 'approval.approve',
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
          value: approvalId,
        },
        { type: 'button', action_id: 'approval.reject', style: 'danger', text: { type: 'plain_text', text: 'Reject' }, value: approvalId },
      ],
    });
  }
  return blocks;
}

/** A thin client of the Slack Web API (chat.postMessage, chat.update), incoming webhooks and response_url. */
export class SlackClient {
  constructor(private readonly options: { botToken: string | undefined; apiBaseUrl: string; timeoutMs: number }) {}

  private async post(url: string, body: unknown, bearer: string | undefined): Promise<Response> {
    try {
      return await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify(body),
        // Slack does not redirect these; following one could lead anywhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw new SlackError(`Slack did not answer (${(error as Error).name})`);
    }
  }

  private async api(method: string, body: Record<string, unknown>): Promise<z.infer<typeof apiResponseSchema>> {
    if (!this.options.botToken) throw new SlackError('SLACK_BOT_TOKEN is not set');
    const response = await this.post(`${this.options.apiBaseUrl.replace(/\/$/, '')}/${method}`, body, this.options.botToken);
    const parsed = apiResponseSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new SlackError(`Slack ${method} answered HTTP ${response.status} without a Web API body`);
    if (!parsed.data.ok) throw new SlackError(`Slack ${method} failed: ${parsed.data.error ?? 'unknown error'}`);
    return parsed.data;
  }

  async postMessage(channel: string, text: string, blocks: unknown[]): Promise<SlackMessageRef> {
    const result = await this.api('chat.postMessage', { channel, text, blocks });
    if (!result.ts) throw new SlackError('Slack chat.postMessage returned no message ts');
    return { channel: result.channel ?? channel, ts: result.ts };
  }

  async updateMessage(ref: SlackMessageRef, text: string): Promise<void> {
    await this.api('chat.update', { channel: ref.channel, ts: ref.ts, text, blocks: approvalBlocks(text, undefined) });
  }

  /** Posts through an incoming webhook, which answers with plain text `ok`. */
  async postWebhook(webhookUrl: string, text: string, blocks: unknown[]): Promise<void> {
    const response = await this.post(webhookUrl, { text, blocks }, undefined);
    // Only the status: what the far end said is not echoed back to the caller.
    if (!response.ok) throw new SlackError(`Slack webhook answered HTTP ${response.status}`);
  }

  /**
   * Answers an interaction through its response_url: `replace` rewrites the tapped message (without
   * buttons); otherwise only the person who tapped sees the text.
   */
  async respond(responseUrl: string, text: string, replace: boolean): Promise<void> {
    const body = replace
      ? { replace_original: true, text, blocks: approvalBlocks(text, undefined) }
      : { replace_original: false, response_type: 'ephemeral', text };
    const response = await this.post(responseUrl, body, undefined);
    if (!response.ok) throw new SlackError(`Slack response_url answered HTTP ${response.status}`);
  }
}
