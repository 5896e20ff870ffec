import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Identity, identitySchema } from '@voice/proto';
import { ApiError } from './errors.js';

/** Headers the gateway adds to every proxied request; services trust them only with a valid signature. */
export const identityHeader = 'x-voice-identity';
export const signatureHeader = 'x-voice-signature';

/** A signature older than this is refused, which bounds the replay of a captured request. */
const maxSkewSeconds = 300;

/** The one MAC of internal requests: HMAC-SHA256 of the signed parts, in order. */
function mac(secret: string, parts: ReadonlyArray<string | Uint8Array>): string {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

function httpParts(timestamp: number, method: string, url: string, encodedIdentity: string): string[] {
  return [`${timestamp}.${method.toUpperCase()}.${url}.${encodedIdentity}`];
}

/**
 * A NATS request's signed parts: the subject (no subject contains a newline, so the payload cannot be
 * shifted into it) and the exact payload bytes, under a label no HTTP signature starts with.
 */
function natsParts(timestamp: number, subject: string, payload: Uint8Array): Array<string | Uint8Array> {
  return [`${timestamp}\nnats\n${subject}\n`, payload];
}

function signature(secret: string, now: Date, parts: (timestamp: number) => ReadonlyArray<string | Uint8Array>): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  return `t=${timestamp},v1=${mac(secret, parts(timestamp))}`;
}

/** Checks a `t=…,v1=…` signature; returns why it is refused, or undefined when it is good. */
function refusal(
  value: unknown,
  secret: string,
  now: Date,
  parts: (timestamp: number) => ReadonlyArray<string | Uint8Array>,
): string | undefined {
  if (typeof value !== 'string' || value === '') return 'signature missing';
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(value);
  if (!match?.[1] || !match[2]) return 'signature malformed';
  const timestamp = Number(match[1]);
  if (Math.abs(now.getTime() / 1000 - timestamp) > maxSkewSeconds) return 'signature expired';
  const expected = Buffer.from(mac(secret, parts(timestamp)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(match[2], 'hex'))) return 'signature does not match';
  return undefined;
}

/**
 * Signs the caller's identity for one request. The signature covers the method and URL (path and query) too, so a signed
 * header cannot be lifted onto another request.
 */
export function signIdentity(
  identity: Identity,
  request: { method: string; url: string },
  secret: string,
  now: Date = new Date(),
): Record<string, string> {
  const encoded = Buffer.from(JSON.stringify(identity)).toString('base64url');
  return {
    [identityHeader]: encoded,
    [signatureHeader]: signature(secret, now, (timestamp) => httpParts(timestamp, request.method, request.url, encoded)),
  };
}

/** Verifies the gateway's signature and returns the identity; anything wrong is 401 `unauthenticated`. */
export function verifyIdentity(
  headers: Record<string, string | string[] | undefined>,
  request: { method: string; url: string },
  secret: string,
  now: Date = new Date(),
): Identity {
  const refuse = (why: string) => new ApiError('unauthenticated', `Request not signed by the gateway: ${why}.`);
  const encoded = headers[identityHeader];
  if (typeof encoded !== 'string' || typeof headers[signatureHeader] !== 'string') throw refuse('identity headers missing');
  const why = refusal(headers[signatureHeader], secret, now, (timestamp) => httpParts(timestamp, request.method, request.url, encoded));
  if (why) throw refuse(why);
  try {
    return identitySchema.parse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
  } catch {
    throw refuse('identity malformed');
  }
}

/** NATS header carrying a request's signature (the identity rides in the signed payload). */
export const natsSignatureHeader = 'Voice-Signature';

/** Signs one NATS request: its subject and exact payload bytes, so the signature cannot be lifted onto another. */
export function signNatsRequest(subject: string, payload: Uint8Array, secret: string, now: Date = new Date()): string {
  return signature(secret, now, (timestamp) => natsParts(timestamp, subject, payload));
}

/** Verifies a NATS request's signature; anything wrong is `unauthenticated`. */
export function verifyNatsRequest(
  value: string | undefined,
  subject: string,
  payload: Uint8Array,
  secret: string,
  now: Date = new Date(),
): void {
  const why = refusal(value, secret, now, (timestamp) => natsParts(timestamp, subject, payload));
  if (why) throw new ApiError('unauthenticated', `Request not signed by a platform process: ${why}.`);
}
