import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, in seconds. Default 300 (Standard Webhooks' 5 minutes). */
  toleranceSeconds?: number;
  /** Now, for tests. */
  now?: Date;
}

/**
 * Headers as node's `IncomingMessage.headers`, a fetch `Headers`, or a plain object of names (any case) to
 * strings (or arrays of them, as node gives repeated headers). `object`, because node's header type is an
 * interface, which no index-signature type accepts.
 */
export type WebhookHeaders = Headers | object;

/** Why a webhook was refused. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const secretPrefix = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([candidate]) => candidate.toLowerCase() === name);
  const value: unknown = Array.isArray(entry?.[1]) ? entry[1][0] : entry?.[1];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks a webhook as Standard Webhooks defines it: the `webhook-signature` header lists `v1,<base64>`
 * signatures (several during a secret rotation), each an HMAC-SHA256 with the secret (`whsec_` + base64) over
 * `<webhook-id>.<webhook-timestamp>.<payload>`; one must match (compared in constant time) and the timestamp
 * must be within the tolerance. `payload` is the raw body as received: parse it only after this. Returns
 * the parsed event; throws `WebhookVerificationError` otherwise.
 */
export function verifyWebhook<Event = unknown>(
  payload: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Event {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
  const body = typeof payload === 'string' ? payload : payload.toString('utf8');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((candidate) => {
    const [version, signature] = candidate.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body) as Event;
}
