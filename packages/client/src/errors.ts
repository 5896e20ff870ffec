import type { components } from './schema.js';

/** The API's error envelope: `{"error": {"code", "message", "param", "request_id"}}`. */
export type ErrorEnvelope = components['schemas']['Error'];

/** The codes the API documents, and `unknown` for an answer without the envelope (a proxy's 502 page). */
export type ErrorCode = ErrorEnvelope['error']['code'] | 'unknown';

/**
 * An error answer of the API, with the envelope's fields: `code` (`not_found`, `invalid_request`,
 * `quota_exceeded`, …), the `param` it is about, and the `request_id` to quote to support.
 */
export class VoiceApiError extends Error {
  override readonly name = 'VoiceApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  /** The response's `Retry-After`, in seconds, where it has one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, body: unknown, headers: Headers) {
    const envelope: { code: ErrorCode; message: string; param?: string | null; request_id?: string | null } | undefined = isEnvelope(body)
      ? body.error
      : undefined;
    super(envelope?.message ?? `HTTP ${status} without the error envelope`);
    this.status = status;
    this.code = envelope?.code ?? 'unknown';
    this.param = envelope?.param ?? undefined;
    this.requestId = envelope?.request_id ?? headers.get('request-id') ?? undefined;
    this.retryAfterSeconds = retryAfterSeconds(headers, Date.now());
  }

  /** The envelope's own spelling, for code that reads `error.request_id`. */
  get request_id(): string | undefined {
    return this.requestId;
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as ErrorEnvelope | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string';
}

/** `Retry-After` as seconds: either form HTTP allows (seconds, or an HTTP date). */
export function retryAfterSeconds(headers: Headers, nowMs: number): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
