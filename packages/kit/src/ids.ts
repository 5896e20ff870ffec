import { randomBytes } from 'node:crypto';
import { type IdKind, idPrefixes } from '@voice/proto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 text of `length` characters from a CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/** A new prefixed id, e.g. `call_4f9XzQ2mN7bR1tY8kLp0`: 20 base62 characters, about 119 bits. */
export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${randomBase62(20)}`;
}
