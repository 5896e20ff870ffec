// A small API client for tests that talk to the gateway over HTTP, as an API client does, and the
// assertions the through-the-gateway files share.
import assert from 'node:assert/strict';
import { bearer } from './gateway.js';

// ── A small API client ──────────────────────────────────────────────────────────────────────────────────

/** A JSON body as received: tests read it field by field and assert each one. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are untyped JSON, checked by the assertions that read them
export type Json = any;

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when the body is empty). */
  body: Json;
  text: string;
}

export interface CallOptions {
  key?: string | undefined;
  body?: unknown;
  /** Sent as is, without JSON encoding (malformed bodies). */
  raw?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Abort after this long (default 20 s), so a hung request fails its test instead of the whole file. */
  timeoutMs?: number;
}

/** One HTTP request to the gateway, the way an API client makes it. */
export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(options.key ? bearer(options.key) : {}), ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** A client bound to the gateway and one key. */
export function client(baseUrl: string, key: string | undefined) {
  return {
    get: (path: string, options: Omit<CallOptions, 'key'> = {}) => call(baseUrl, 'GET', path, { ...options, key }),
    post: (path: string, body?: unknown, options: Omit<CallOptions, 'key' | 'body'> = {}) =>
      call(baseUrl, 'POST', path, { ...options, key, ...(body === undefined ? {} : { body }) }),
    patch: (path: string, body?: unknown, options: Omit<CallOptions, 'key' | 'body'> = {}) =>
      call(baseUrl, 'PATCH', path, { ...options, key, ...(body === undefined ? {} : { body }) }),
    delete: (path: string, options: Omit<CallOptions, 'key'> = {}) => call(baseUrl, 'DELETE', path, { ...options, key }),
    call: (method: string, path: string, options: Omit<CallOptions, 'key'> = {}) => call(baseUrl, method, path, { ...options, key }),
  };
}
export type Client = ReturnType<typeof client>;

// ── Assertions shared by the files ──────────────────────────────────────────────────────────────────────

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|\+00:00)$/;

/** Asserts the error envelope, with the status, code and (when given) param; never a stack trace or HTML. */
export function assertError(response: ApiResponse, status: number, code: string, param?: string): void {
  const where = `${status} ${code}: got ${response.status} ${response.text.slice(0, 300)}`;
  assert.equal(response.status, status, where);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/, where);
  assert.equal(typeof response.body?.error, 'object', where);
  assert.equal(response.body.error.code, code, where);
  assert.equal(typeof response.body.error.message, 'string', where);
  assert.ok(response.body.error.message.length > 0, where);
  assert.equal(typeof response.body.error.request_id, 'string', where);
  assert.equal(response.body.error.request_id, response.headers.get('request-id'), where);
  if (param !== undefined) assert.equal(response.body.error.param, param, where);
  assert.doesNotMatch(response.text, /\bat .+\.(ts|js):\d+/, 'no stack trace in an error');
}

/** Asserts a success status and returns the body. */
export function ok(response: ApiResponse, status = 200): Json {
  assert.equal(response.status, status, `expected ${status}, got ${response.status} ${response.text.slice(0, 500)}`);
  return response.body;
}

/**
 * Asserts the public shape of a record: its id has the prefix, its keys are snake_case (recursively, except
 * inside free-form maps such as metadata), and every `*_at` field is an ISO 8601 UTC timestamp or null.
 */
export function assertRecord(record: Json, prefix: string, object?: string): void {
  assert.equal(typeof record, 'object');
  assert.match(record.id, new RegExp(`^${prefix}_[0-9A-Za-z]{8,40}$`), `id ${record.id} has prefix ${prefix}_`);
  if (object !== undefined) assert.equal(record.object, object);
  assert.match(record.created_at, isoUtc, 'created_at is ISO 8601 UTC');
  assertSnakeCase(record, '');
}

const freeForm = new Set(['metadata', 'custom_fields', 'data']);

function assertSnakeCase(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) assertSnakeCase(item, `${path}[${index}]`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [name, child] of Object.entries(value)) {
    assert.match(name, /^[a-z][a-z0-9_]*$/, `${path}.${name} is snake_case`);
    if (name.endsWith('_at') && child !== null) assert.match(String(child), isoUtc, `${path}.${name} is ISO 8601 UTC`);
    if (!freeForm.has(name)) assertSnakeCase(child, `${path}.${name}`);
  }
}

/** Asserts the rate-limit headers and returns the remaining count. */
export function rateHeaders(response: ApiResponse): { limit: number; remaining: number; reset: number } {
  const limit = response.headers.get('x-ratelimit-limit');
  const remaining = response.headers.get('x-ratelimit-remaining');
  const reset = response.headers.get('x-ratelimit-reset');
  assert.match(limit ?? '', /^\d+$/, 'X-RateLimit-Limit');
  assert.match(remaining ?? '', /^\d+$/, 'X-RateLimit-Remaining');
  assert.match(reset ?? '', /^\d+$/, 'X-RateLimit-Reset');
  assert.match(response.headers.get('request-id') ?? '', /^req_[0-9A-Za-z]{8,40}$/, 'Request-Id');
  const resetAt = Number(reset);
  assert.ok(resetAt > Date.now() / 1000, 'X-RateLimit-Reset is in the future (Unix seconds)');
  return { limit: Number(limit), remaining: Number(remaining), reset: resetAt };
}

/** Asserts that successive calls each consume one from the key's monthly quota. */
export async function assertRateLimitHeaders(calls: Array<() => Promise<ApiResponse>>, quota: number): Promise<void> {
  let previous: number | undefined;
  for (const make of calls) {
    const response = await make();
    assert.ok(response.status >= 200 && response.status < 300, `${response.status} ${response.text.slice(0, 200)}`);
    const { limit, remaining } = rateHeaders(response);
    assert.equal(limit, quota);
    if (previous !== undefined) assert.equal(remaining, previous - 1, 'X-RateLimit-Remaining drops by one per call');
    previous = remaining;
  }
}

/**
 * Walks a list with `limit` page by page and returns the ids in order, checking each page's shape: at most
 * `limit` items, `has_more` iff `next_cursor`, and no id twice.
 */
export async function walk(api: Client, path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const query: string = `${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = ok(await api.get(`${path}${query}`));
    pages++;
    assert.ok(Array.isArray(page.data));
    assert.ok(page.data.length <= limit);
    assert.equal(typeof page.has_more, 'boolean');
    assert.equal(page.has_more, page.next_cursor !== null, 'has_more exactly when next_cursor');
    for (const item of page.data) ids.push(item.id);
    cursor = page.next_cursor;
    assert.ok(pages < 100, 'pagination ends');
  } while (cursor !== null);
  assert.equal(new Set(ids).size, ids.length, 'no item on two pages');
  return { ids, pages };
}

let counter = 0;
/** A fresh idempotency key. */
export const idemKey = (label = 'k') =>
  `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** A well-formed id of the kind that names nothing. */
export const missingId = (prefix: string) => `${prefix}_${'0'.repeat(8)}Missing1`;
