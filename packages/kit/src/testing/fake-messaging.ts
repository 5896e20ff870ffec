// Small local HTTP servers that speak the Telegram Bot API and the Slack Web API (and Slack's response_url
// and incoming webhooks), so the production adapters are the code under test.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readJson } from './request-body.js';

export interface RecordedCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>, port: number) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    handler(request, response).catch(() => {
      response.statusCode = 500;
      response.end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** The fake bot's @username, as getMe answers it. */
export const fakeTelegramBotUsername = 'voice_approvals_bot';

export interface FakeTelegram {
  baseUrl: string;
  token: string;
  calls: RecordedCall[];
  /** Chats the bot is not in: sendMessage to them answers 403 like Telegram does. */
  unreachableChats: Set<string>;
  callsOf(method: string): RecordedCall[];
  close(): Promise<void>;
}

/** The Bot API at `/bot<token>/<method>`: answers `{ok: true, result}`, or `{ok: false}` for a wrong token. */
export async function startFakeTelegram(token: string, port = 0): Promise<FakeTelegram> {
  let nextMessageId = 100;
  const fake: Omit<FakeTelegram, 'baseUrl' | 'close'> = {
    token,
    calls: [],
    unreachableChats: new Set(),
    callsOf: (method) => fake.calls.filter((call) => call.method === method),
  };
  const server = await listen(async (request, response) => {
    const body = await readJson(request);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.url ?? '');
    if (!match || match[1] !== token) return send(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = match[2] ?? '';
    fake.calls.push({ method, path: request.url ?? '', headers: request.headers, body });
    if (method === 'sendMessage') {
      const chatId = String(body.chat_id);
      if (fake.unreachableChats.has(chatId)) {
        return send(response, 403, { ok: false, error_code: 403, description: 'Forbidden: bot is not a member of the group chat' });
      }
      nextMessageId += 1;
      return send(response, 200, {
        ok: true,
        result: {
          message_id: nextMessageId,
          chat: { id: Number(chatId), type: 'group' },
          date: Math.floor(Date.now() / 1000),
          text: body.text,
        },
      });
    }
    if (method === 'getMe') {
      return send(response, 200, {
        ok: true,
        result: { id: 777000, is_bot: true, first_name: 'Approvals', username: fakeTelegramBotUsername },
      });
    }
    if (method === 'editMessageText') return send(response, 200, { ok: true, result: { message_id: body.message_id } });
    if (method === 'answerCallbackQuery') return send(response, 200, { ok: true, result: true });
    return send(response, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
  }, port);
  return Object.assign(fake, { baseUrl: server.url, close: server.close });
}

export interface FakeSlack {
  /** The Web API root, e.g. http://127.0.0.1:1234/api */
  apiBaseUrl: string;
  /** An incoming-webhook URL and the response_url of interactions, served by the same fake. */
  webhookUrl: string;
  responseUrl: string;
  calls: RecordedCall[];
  callsOf(path: string): RecordedCall[];
  close(): Promise<void>;
}

export async function startFakeSlack(botToken: string, port = 0): Promise<FakeSlack> {
  let nextTs = 1_700_000_000;
  const fake: Omit<FakeSlack, 'apiBaseUrl' | 'webhookUrl' | 'responseUrl' | 'close'> = {
    calls: [],
    callsOf: (path) => fake.calls.filter((call) => call.path === path),
  };
  const server = await listen(async (request, response) => {
    const body = await readJson(request);
    const path = request.url ?? '';
    fake.calls.push({ method: request.method ?? 'GET', path, headers: request.headers, body });
    if (path.startsWith('/api/')) {
      if (request.headers.authorization !== `Bearer ${botToken}`) return send(response, 200, { ok: false, error: 'invalid_auth' });
      if (path === '/api/chat.postMessage') {
        nextTs += 1;
        return send(response, 200, { ok: true, channel: body.channel, ts: `${nextTs}.000100`, message: { text: body.text } });
      }
      if (path === '/api/chat.update') return send(response, 200, { ok: true, channel: body.channel, ts: body.ts });
      return send(response, 200, { ok: false, error: 'unknown_method' });
    }
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  }, port);
  return Object.assign(fake, {
    apiBaseUrl: `${server.url}/api`,
    webhookUrl: `${server.url}/services/T0001/B0001/webhooksecret`,
    responseUrl: `${server.url}/actions/T0001/1234/responsesecret`,
    close: server.close,
  });
}
