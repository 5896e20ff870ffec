// The platform an approvals test needs: leads (what the agent's action deletes), mcp (the approvals) and the
// console (and webhooks, see ApprovalsPlatform), behind the gateway, with a fake Telegram Bot API; and an
// agent, an MCP SDK client that talks to the gateway with an API key as customers' agents do.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { type FakeTelegram, startFakeTelegram } from '@voice/kit/testing';
import type { PendingApproval } from '@voice/proto';
import type { Page } from 'playwright-core';
import { createInvitation } from '../../src/domain/invitations.js';
import type { ConsoleInBrowser } from './browser.js';
import { type SharedChromium, sharedChromium } from './chromium.js';

export const telegramWebhookSecret = 'console-approvals-telegram-secret_01';

/**
 * With the webhooks service too, though approvals never use it: the browser steps' `ConsoleInBrowser` is a
 * platform of the console and the webhooks service (whose pages the other browser tests open), and this
 * platform must be one. With telephony too: the overview and a lead's page ask it for calls, and without it
 * each such page waits out that call's deadline.
 */
export type ApprovalsPlatform = Platform<'telephony' | 'leads' | 'mcp' | 'webhooks' | 'console'> & { telegram: FakeTelegram };

/** The platform with a Telegram bot configured and no Slack app (so the Slack form says so); `mcpEnv` adds to the mcp service's. */
export async function startApprovalsPlatform(mcpEnv: Record<string, string> = {}): Promise<ApprovalsPlatform> {
  const token = '654321:console-approvals-bot';
  const telegram = await startFakeTelegram(token);
  const platform = await startPlatform({
    services: ['telephony', 'leads', 'mcp', 'webhooks', 'console'],
    mcp: { TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_SECRET: telegramWebhookSecret, TELEGRAM_API_BASE_URL: telegram.baseUrl, ...mcpEnv },
  });
  const closePlatform = platform.close;
  return Object.assign(platform, {
    telegram,
    async close() {
      await closePlatform();
      await telegram.close();
    },
  });
}

export interface Agent {
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Creates a lead and asks to delete it: the delete waits for a person's approval. */
  askToDeleteLead(): Promise<{ leadId: string; approvalId: string }>;
  close(): Promise<void>;
}

export async function connectAgent(gatewayUrl: string, key: string): Promise<Agent> {
  const client = new Client({ name: 'console-approvals-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.ok(!result.isError, `${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  return {
    call,
    async askToDeleteLead() {
      const lead = await call('service_create_lead', { name: 'Jane Roe', phone: '+14155550142' });
      const pending = (await call('service_delete_lead', { lead_id: lead.id })) as PendingApproval;
      assert.equal(pending.status, 'pending_approval');
      return { leadId: String(lead.id), approvalId: pending.approval_id };
    },
    close: () => client.close(),
  };
}

/** An update as Telegram posts it to the platform's public hook through the gateway, with its secret token. */
async function postTelegramUpdate(gatewayUrl: string, update: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${gatewayUrl}/api/hooks/telegram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': telegramWebhookSecret },
    body: JSON.stringify({ update_id: Math.floor(Math.random() * 1e9), ...update }),
  });
  assert.equal(response.status, 200, await response.text());
}

/** A tap on a Telegram button. */
export function telegramTap(gatewayUrl: string, chatId: string, data: string, callbackId: string): Promise<void> {
  return postTelegramUpdate(gatewayUrl, {
    callback_query: {
      id: callbackId,
      from: { id: 4242, is_bot: false, first_name: 'Alice', username: 'alice' },
      message: { message_id: 101, chat: { id: Number(chatId), type: 'group' }, date: 1, text: 'Approval needed' },
      chat_instance: '-1',
      data,
    },
  });
}

/** A message sent in a Telegram chat. */
export function telegramMessage(gatewayUrl: string, chatId: string, text: string): Promise<void> {
  return postTelegramUpdate(gatewayUrl, {
    message: {
      message_id: Math.floor(Math.random() * 1e6),
      from: { id: 4242, is_bot: false, first_name: 'Alice', username: 'alice' },
      chat: { id: Number(chatId), type: 'group', title: 'Approvers' },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  });
}

/** What the bot last said in a chat. */
export function lastReply(telegram: FakeTelegram, chatId: string): string | undefined {
  return telegram
    .callsOf('sendMessage')
    .filter((call) => String(call.body.chat_id) === chatId)
    .map((call) => String(call.body.text))
    .at(-1);
}

/** The command a link-code page shows (`/start@<bot> <code>`), read from its HTML. */
export function linkCommandOf(body: string): string {
  const command = /id="link-command" readonly value="([^"]+)"/.exec(body)?.[1];
  assert.ok(command, 'the page shows a link command');
  return command;
}

/**
 * Links the chat as an owner does in a browser: "Link a Telegram chat…" shows a one-time code, which is sent
 * from the chat; the bot answers there.
 */
export async function linkTelegramInBrowser(page: Page, platform: ApprovalsPlatform, chatId: string): Promise<void> {
  await page.goto('/dashboard/approvals');
  await page.getByRole('button', { name: 'Link a Telegram chat…' }).click();
  await page.getByRole('heading', { name: 'Link a Telegram chat' }).waitFor();
  const command = await page.getByLabel('Send to the bot in the chat').inputValue();
  await telegramMessage(platform.url, chatId, command);
  assert.match(lastReply(platform.telegram, chatId) ?? '', /^Linked: /);
  await page.getByRole('link', { name: 'Back to approval channels' }).click();
  await page.waitForURL(/\/dashboard\/approvals#channels$/);
}

/** The approvals platform with headless Chromium, shaped like `startConsoleInBrowser`'s so the journey steps work. */
export async function startApprovalsInBrowser(
  mcpEnv: Record<string, string> = {},
): Promise<ConsoleInBrowser<'console' | 'webhooks'> & { platform: ApprovalsPlatform }> {
  const platform = await startApprovalsPlatform(mcpEnv);
  let chromium: SharedChromium;
  try {
    chromium = await sharedChromium();
  } catch (error) {
    await platform.close();
    throw error;
  }
  const { browser } = chromium;
  return {
    platform,
    browser,
    url: platform.url,
    newContext: (options = {}) => browser.newContext({ baseURL: platform.url, ...options }),
    async invitationLink(orgId, email, role) {
      const invitation = await createInvitation(platform.console.deps, { orgId, email, role, invitedBy: null });
      return new URL(new URL(invitation.link).pathname, platform.url).toString();
    },
    async close() {
      // The browser first (its connections end before the servers close), then the platform.
      await chromium.release();
      await platform.close();
    },
  };
}
