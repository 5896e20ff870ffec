import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const secretPrefix = 'whsec_';

/** A new signing secret as Standard Webhooks writes it: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the base64-decoded part after `whsec_`. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
}

/** One `v1,<base64>` signature: HMAC-SHA256 over `id.timestamp.body`. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The three Standard Webhooks headers. With more than one secret (during a rotation) the signature header
 * lists one signature per secret, space-separated, so receivers holding either secret verify.
 */
export function signedHeaders(secrets: readonly string[], messageId: string, body: string, now: Date = new Date()): SignedHeaders {
  const timestampSeconds = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(' '),
  };
}

/**
 * What a receiver does, in the service's own terms: true when one of the listed signatures matches and
 * the timestamp is within `toleranceSeconds` of now. The README shows the same few lines for receivers.
 */
export function verify(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): boolean {
  const timestampSeconds = Number(headers.timestamp);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!Number.isInteger(timestampSeconds) || Math.abs(nowSeconds - timestampSeconds) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(sign(secret, headers.id, timestampSeconds, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
