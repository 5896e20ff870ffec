import { createHmac } from 'node:crypto';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createOrgWithKey, type Platform, startPlatform } from '@voice/gateway/testing';
import { type HttpApp, newId, parseEnv } from '@voice/kit';
import {
  type FakeSlack,
  type FakeTelegram,
  freePort,
  gatewayHeaders,
  startFakeSlack,
  startFakeTelegram,
  type TestContext,
  testIdentity,
} from '@voice/kit/testing';
import { type ChannelLinkCode, type Identity, type Invoice, mcpRpc } from '@voice/proto';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { connectDeps, type McpDeps } from '../../src/deps.js';
import { envSchema } from '../../src/env.js';

export const telegramBotToken = '123456:test-bot-token';
export const telegramWebhookSecret = 'telegram-webhook-secret_0123';
export const slackBotToken = 'xoxb-test-token';
export const slackSigningSecret = 'slack-signing-secret-0123456789';

export interface McpHarness {
  ctx: TestContext;
  deps: McpDeps;
  app: HttpApp;
  /**
   * The services the tools call, and the gateway for its NATS operations (a key's standing) and its operator
   * commands; the dialer is off, so a queued call stays queued.
   */
  platform: Platform<'leads' | 'telephony'> & Partial<Pick<Platform<'console'>, 'console'>>;
  telegram: FakeTelegram;
  slack: FakeSlack;
  /** A caller with a real organization and key in the gateway (approvals re-check the key before acting). */
  identity(options?: { plan?: Identity['plan']; scope?: Identity['scope'] }): Promise<Identity>;
  /** Moves the service's clock; expiry follows it. */
  advanceClock(ms: number): void;
  request(identity: Identity, method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  /** tools/call over the MCP endpoint, as JSON-RPC. */
  tool(identity: Identity, name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  telegramTap(chatId: string, data: string, options?: { secret?: string; callbackId?: string }): Promise<LightMyRequestResponse>;
  slackTap(channelId: string, actionId: string, approvalId: string, options?: { signingSecret?: string }): Promise<LightMyRequestResponse>;
  /** A message sent in a Telegram chat, as Telegram posts it to the webhook. */
  telegramMessage(chatId: string, text: string, options?: { secret?: string }): Promise<LightMyRequestResponse>;
  /** A Slack slash command sent in a channel, signed as Slack signs it. */
  slackCommand(channelId: string, text: string, options?: { signingSecret?: string; command?: string }): Promise<LightMyRequestResponse>;
  /** A link code for the organization, asked for by one of its people (as the console does). */
  linkCode(identity: Identity, input: { kind: 'telegram' | 'slack'; webhook_url?: string }): Promise<ChannelLinkCode>;
  /** Links the chat as a person does: a link code, sent from that chat; fails the test unless it was linked. */
  linkTelegram(identity: Identity, chatId: string): Promise<void>;
  linkSlack(identity: Identity, channelId: string, webhookUrl?: string): Promise<void>;
  close(): Promise<void>;
}

/** Serves an mcp app on a loopback port (from TEST_OWN_PORTS when set); returns its base URL. */
export async function listenOn(app: HttpApp): Promise<string> {
  const port = await freePort();
  await app.listen({ host: '127.0.0.1', port });
  return `http://127.0.0.1:${port}`;
}

/**
 * The SDK's own client on an mcp replica, as `identity`: each request carries the signed identity headers
 * the gateway would add, so the replica is reached as behind the gateway.
 */
export async function sdkClient(baseUrl: string, identity: Identity, options: ClientOptions = {}): Promise<Client> {
  const signedFetch: typeof fetch = (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init.method ?? 'GET';
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(gatewayHeaders(identity, method, url.pathname + url.search))) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { fetch: signedFetch }));
  return client;
}

/** A person of the identity's organization, as the console calls for them (read-write, with user_id). */
export function personOf(identity: Identity): Identity {
  const userId = newId('user');
  return { ...identity, key_id: userId, user_id: userId, scope: 'read-write' };
}

/** The body and signature headers of a request Slack sends to the platform. */
export function slackSigned(body: string, signingSecret: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature };
}

/** With `console`, the platform runs the console too (people and roles: who an approval is e-mailed to). */
export async function startMcpHarness(env: Record<string, string> = {}, options: { console?: boolean } = {}): Promise<McpHarness> {
  const services = options.console ? (['leads', 'telephony', 'console'] as const) : (['leads', 'telephony'] as const);
  const [telegram, slack, platform] = await Promise.all([
    startFakeTelegram(telegramBotToken),
    startFakeSlack(slackBotToken),
    startPlatform<'leads' | 'telephony' | 'console'>({ services, telephony: { WORKERS: 'outbox' }, console: { WORKERS: 'none' } }),
  ]);
  const ctx = platform.ctx;
  let clockOffsetMs = 0;
  const deps = await connectDeps(
    parseEnv(envSchema, {
      ...ctx.env,
      TELEGRAM_BOT_TOKEN: telegramBotToken,
      TELEGRAM_WEBHOOK_SECRET: telegramWebhookSecret,
      TELEGRAM_API_BASE_URL: telegram.baseUrl,
      SLACK_BOT_TOKEN: slackBotToken,
      SLACK_SIGNING_SECRET: slackSigningSecret,
      SLACK_API_BASE_URL: slack.apiBaseUrl,
      ...env,
    }),
    undefined,
    { now: () => new Date(Date.now() + clockOffsetMs) },
  );
  const app = await buildApp(deps);
  await app.ready();
  let rpcId = 0;
  let callbackCounter = 0;
  const request: McpHarness['request'] = (identity, method, url, payload) =>
    app.inject({
      method,
      url,
      headers: gatewayHeaders(identity, method, url),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  /** An update as Telegram posts it to the webhook, with its secret token. */
  const telegramUpdate = (secret: string | undefined, update: Record<string, unknown>) =>
    app.inject({
      method: 'POST',
      url: '/api/hooks/telegram',
      headers: { 'x-telegram-bot-api-secret-token': secret ?? telegramWebhookSecret },
      payload: update,
    });
  const harness: McpHarness = {
    ctx,
    deps,
    app,
    platform,
    telegram,
    slack,
    async identity(options = {}) {
      const plan = options.plan ?? 'pro';
      const scope = options.scope ?? 'read-write';
      const { orgId, keyId } = await createOrgWithKey(platform.gateway, { plan, scope, quota: 100_000 });
      return testIdentity({ org_id: orgId, key_id: keyId, plan, scope });
    },
    advanceClock(ms) {
      clockOffsetMs += ms;
    },
    request,
    async tool(identity, name, args) {
      rpcId += 1;
      const response = await app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...gatewayHeaders(identity, 'POST', '/api/mcp'), accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name, arguments: args } },
      });
      if (response.statusCode !== 200) throw new Error(`MCP answered ${response.statusCode}: ${response.body}`);
      const body = response.json() as { result?: CallToolResult; error?: unknown };
      if (!body.result) throw new Error(`MCP protocol error: ${JSON.stringify(body.error)}`);
      return body.result;
    },
    telegramTap(chatId, data, options = {}) {
      callbackCounter += 1;
      return telegramUpdate(options.secret, {
        update_id: 1000 + callbackCounter,
        callback_query: {
          id: options.callbackId ?? `cbq${callbackCounter}`,
          from: { id: 4242, is_bot: false, first_name: 'Alice', username: 'alice' },
          message: { message_id: 101, chat: { id: Number(chatId), type: 'group' }, date: 1, text: 'Approval needed' },
          chat_instance: '-1',
          data,
        },
      });
    },
    slackTap(channelId, actionId, approvalId, options = {}) {
      const payload = {
        type: 'block_actions',
        user: { id: 'U0APPROVER', username: 'bob', name: 'bob' },
        team: { id: 'T0001', domain: 'acme' },
        channel: { id: channelId, name: 'approvals' },
        response_url: slack.responseUrl,
        actions: [{ action_id: actionId, block_id: 'approval', value: approvalId, type: 'button', action_ts: '1.2' }],
      };
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return app.inject({
        method: 'POST',
        url: '/api/hooks/slack/interactions',
        headers: slackSigned(body, options.signingSecret ?? slackSigningSecret),
        payload: body,
      });
    },
    telegramMessage(chatId, text, options = {}) {
      callbackCounter += 1;
      return telegramUpdate(options.secret, {
        update_id: 1000 + callbackCounter,
        message: {
          message_id: 500 + callbackCounter,
          from: { id: 4242, is_bot: false, first_name: 'Alice', username: 'alice' },
          chat: { id: Number(chatId), type: 'group', title: 'Approvers' },
          date: Math.floor(Date.now() / 1000),
          text,
        },
      });
    },
    slackCommand(channelId, text, options = {}) {
      const body = new URLSearchParams({
        token: 'deprecated-verification-token',
        team_id: 'T0001',
        channel_id: channelId,
        channel_name: 'approvals',
        user_id: 'U0LINKER',
        user_name: 'carol',
        command: options.command ?? '/approvals',
        text,
        response_url: slack.responseUrl,
        trigger_id: '1.2.3',
      }).toString();
      return app.inject({
        method: 'POST',
        url: '/api/hooks/slack/commands',
        headers: slackSigned(body, options.signingSecret ?? slackSigningSecret),
        payload: body,
      });
    },
    linkCode(identity, input) {
      return deps.bus.call(mcpRpc.startChannelLink, personOf(identity), input);
    },
    async linkTelegram(identity, chatId) {
      const { code } = await harness.linkCode(identity, { kind: 'telegram' });
      const before = telegram.callsOf('sendMessage').length;
      const response = await harness.telegramMessage(chatId, `/start ${code}`);
      if (response.statusCode !== 200) throw new Error(`the Telegram hook answered ${response.statusCode}: ${response.body}`);
      const reply = telegram
        .callsOf('sendMessage')
        .slice(before)
        .find((call) => String(call.body.chat_id) === chatId);
      if (!String(reply?.body.text).startsWith('Linked')) throw new Error(`not linked: ${String(reply?.body.text)}`);
    },
    async linkSlack(identity, channelId, webhookUrl) {
      const { code } = await harness.linkCode(identity, { kind: 'slack', ...(webhookUrl ? { webhook_url: webhookUrl } : {}) });
      const response = await harness.slackCommand(channelId, code);
      if (response.statusCode !== 200 || !String(response.json().text).startsWith('Linked')) {
        throw new Error(`not linked: ${response.statusCode} ${response.body}`);
      }
    },
    async close() {
      await app.close();
      await deps.close();
      await platform.close();
      await Promise.all([telegram.close(), slack.close()]);
    },
  };
  return harness;
}

/** The structured result of a successful tool call; fails the test with the tool's error text otherwise. */
export function structured<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  if (text !== JSON.stringify(result.structuredContent)) throw new Error('text content differs from structuredContent');
  return result.structuredContent as T;
}

/** A lead and a draft invoice of 2 × $49.50 for it, made through the tools. */
export async function draftInvoiceFor(h: McpHarness, identity: Identity): Promise<Invoice> {
  const lead = structured<{ id: string }>(await h.tool(identity, 'service_create_lead', { name: 'Jane Roe', phone: '+14155550101' }));
  return structured<Invoice>(
    await h.tool(identity, 'service_draft_invoice', {
      lead_id: lead.id,
      lines: [{ description: 'Consulting hour', quantity: 2, unit_amount: 4950 }],
      due_date: '2026-12-31',
    }),
  );
}

/** The text of a tool error; fails the test when the call succeeded. */
export function errorText(result: CallToolResult): string {
  if (!result.isError) throw new Error(`expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  return result.content[0]?.type === 'text' ? result.content[0].text : '';
}

const nameOf = (params: Record<string, unknown>) =>
  [params.name, params.taskId, params.uri].find((value) => typeof value === 'string') as string | undefined;

/** A 2026-07-28 request as its wire says it: headers naming revision, method and tool, and the `_meta` envelope. */
export function modernRpc(
  baseUrl: string,
  identity: Identity,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
): Promise<ModernRpcAnswer> {
  return modernRpcWith(baseUrl, gatewayHeaders(identity, 'POST', '/api/mcp'), method, params, capabilities);
}

export interface ModernRpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The same with the caller's own headers: a bearer credential through the gateway. */
export async function modernRpcWith(
  baseUrl: string,
  headers: Record<string, string>,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
): Promise<ModernRpcAnswer> {
  const response = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      // The name a request acts on: a tool's, a task's id, a resource's URI.
      ...(nameOf(params) ? { 'mcp-name': nameOf(params) } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  return (await response.json()) as ModernRpcAnswer;
}

/** A second mcp replica on the harness's database and NATS, both listening: two targets of a load balancer. */
export async function twoReplicas(h: McpHarness): Promise<{ url1: string; url2: string; close(): Promise<void> }> {
  const deps = await connectDeps(h.deps.env, undefined, { now: h.deps.now });
  const app = await buildApp(deps);
  const [url1, url2] = await Promise.all([listenOn(h.app), listenOn(app)]);
  return {
    url1,
    url2,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}
