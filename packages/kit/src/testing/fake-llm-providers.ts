// Small local HTTP servers that speak the real OpenAI Chat Completions and Anthropic Messages APIs, so the
// production adapters (the official SDKs) are the code under test. Each answer is chosen by a function of
// the structured-output name the request asked for (json_schema name / forced tool name).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJson } from './request-body.js';

/** What the fake should do for one request. */
export type FakeAnswer =
  | { kind: 'json'; value: unknown; delayMs?: number; after?: Promise<unknown> }
  | { kind: 'text'; text: string; delayMs?: number; after?: Promise<unknown> }
  | { kind: 'status'; status: number; delayMs?: number; after?: Promise<unknown>; body?: unknown }
  | { kind: 'hang' };

export type FakeBehaviour = (name: string, body: Record<string, unknown>) => FakeAnswer;

export interface FakeProvider {
  /** Base URL for the SDK: OpenAI's includes /v1, Anthropic's does not (the SDK adds /v1/messages). */
  baseUrl: string;
  requests: Array<{ path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }>;
  behaviour: FakeBehaviour;
  close(): Promise<void>;
}

function promptName(body: Record<string, unknown>): string {
  const format = body.response_format as { json_schema?: { name?: string } } | undefined;
  if (format?.json_schema?.name) return format.json_schema.name;
  const choice = body.tool_choice as { name?: string } | undefined;
  return choice?.name ?? 'unknown';
}

async function startFake(
  provider: 'openai' | 'anthropic',
  behaviour: FakeBehaviour,
  port: number,
  render: (name: string, answer: Extract<FakeAnswer, { kind: 'json' | 'text' }>, body: Record<string, unknown>) => unknown,
): Promise<FakeProvider> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeProvider = {
    baseUrl: '',
    requests: [],
    behaviour,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  const expectedPath = provider === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const server: Server = createServer(async (request, response) => {
    const body = await readJson(request);
    fake.requests.push({ path: request.url ?? '', headers: request.headers, body });
    if (request.method !== 'POST' || request.url !== expectedPath) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const name = promptName(body);
    const answer = fake.behaviour(name, body);
    if (answer.kind === 'hang') return;
    if (answer.after) await answer.after;
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    if (response.destroyed) return;
    if (answer.kind === 'status') {
      const error =
        provider === 'openai'
          ? { error: { message: 'fake failure', type: 'server_error' } }
          : { type: 'error', error: { type: 'api_error', message: 'fake failure' } };
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body ?? error));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(render(name, answer, body)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  fake.baseUrl = provider === 'openai' ? `http://127.0.0.1:${bound}/v1` : `http://127.0.0.1:${bound}`;
  return fake;
}

/** An OpenAI-compatible server: `POST /v1/chat/completions`, the answer as the message content. */
export function startFakeOpenAi(behaviour: FakeBehaviour, port = 0): Promise<FakeProvider> {
  return startFake('openai', behaviour, port, (_name, answer, body) => ({
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: String(body.model ?? 'fake'),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.kind === 'json' ? JSON.stringify(answer.value) : answer.text, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
  }));
}

/** An Anthropic-compatible server: `POST /v1/messages`, JSON answers as the forced tool call, text as text. */
export function startFakeAnthropic(behaviour: FakeBehaviour, port = 0): Promise<FakeProvider> {
  return startFake('anthropic', behaviour, port, (name, answer, body) => ({
    id: `msg_${Math.random().toString(36).slice(2)}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model ?? 'fake'),
    content:
      answer.kind === 'json'
        ? [{ type: 'tool_use', id: `toolu_${Math.random().toString(36).slice(2)}`, name, input: answer.value }]
        : [{ type: 'text', text: answer.text }],
    stop_reason: answer.kind === 'json' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 50, output_tokens: 20 },
  }));
}

/** Answers of a model that knows the brand well and names it first in its category. */
export function knowingAnswers(brand: string, delayMs = 0): FakeBehaviour {
  return (name) => {
    switch (name) {
      case 'brand_recognition':
        return {
          kind: 'json',
          delayMs,
          value: { knows: true, confidence: 0.9, summary: `${brand} makes voice agents for small businesses.` },
        };
      case 'brand_description':
        return {
          kind: 'json',
          delayMs,
          value: {
            description: `${brand} builds AI voice agents that answer calls and book appointments for small businesses.`,
            category: 'AI voice agents',
            competitors: ['Goodcall', 'Smith.ai', 'Ruby'],
          },
        };
      case 'category_recall':
        return { kind: 'json', delayMs, value: { category: 'AI voice agents', brands: [brand, 'Goodcall', 'Smith.ai'] } };
      default:
        return { kind: 'status', status: 400, delayMs };
    }
  };
}

/** Answers of a model that has never heard of the brand. */
export function unawareAnswers(delayMs = 0): FakeBehaviour {
  return (name) => {
    switch (name) {
      case 'brand_recognition':
        return { kind: 'json', delayMs, value: { knows: false, confidence: 0.1, summary: '' } };
      case 'brand_description':
        return { kind: 'json', delayMs, value: { description: '', category: '', competitors: [] } };
      case 'category_recall':
        return { kind: 'json', delayMs, value: { category: 'AI voice agents', brands: ['Goodcall', 'Smith.ai', 'Ruby'] } };
      default:
        return { kind: 'status', status: 400, delayMs };
    }
  };
}

/** Recall's settings that point both model providers at these stand-ins (its production adapters, their servers faked). */
export function fakeProvidersEnv(openai: FakeProvider, anthropic: FakeProvider): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: openai.baseUrl,
    OPENAI_MODEL: 'gpt-test',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    ANTHROPIC_MODEL: 'claude-test',
  };
}
