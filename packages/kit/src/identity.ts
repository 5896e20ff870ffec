import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Identity, identitySchema } from '@voice/proto';
import { ApiError } from './errors.js';

/** Headers the gateway adds to every proxied request; services trust them only with a valid signature. */
export const identityHeader = 'x-voice-identity';
export const signatureHeader = 'x-voice-signature';

/** A signature older than this is refused, which bounds the replay of a captured request. */
const maxSkewSeconds = 300;

function mac(secret: string, timestamp: number, method: string, url: string, encodedIdentity: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${method.toUpperCase()}.${url}.${encodedIdentity}`).digest('hex');
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
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    [identityHeader]: encoded,
    [signatureHeader]: `t=${timestamp},v1=${mac(secret, timestamp, request.method, request.url, encoded)}`,
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
  const signature = headers[signatureHeader];
  if (typeof encoded !== 'string' || typeof signature !== 'string') throw refuse('identity headers missing');
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(signature);
  if (!match?.[1] || !match[2]) throw refuse('signature malformed');
  const timestamp = Number(match[1]);
  if (Math.abs(now.getTime() / 1000 - timestamp) > maxSkewSeconds) throw refuse('signature expired');
  const expected = Buffer.from(mac(secret, timestamp, request.method, request.url, encoded), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(match[2], 'hex'))) throw refuse('signature does not match');
  try {
    return identitySchema.parse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
  } catch {
    throw refuse('identity malformed');
  }
}
