import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62 } from '@voice/kit';

/**
 * API key format: `vk_live_` + 32 base62 characters (about 190 random bits) + a 6-character base62 CRC32
 * of everything before it. The checksum lets the gateway reject a mistyped or made-up key without a
 * lookup, and lets secret scanners recognise a real key.
 */
const keyPrefix = 'vk_live_';
const randomLength = 32;
const checksumLength = 6;
const keyPattern = new RegExp(`^${keyPrefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`);
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62Checksum(text: string): string {
  let value = crc32(text);
  let out = '';
  for (let i = 0; i < checksumLength; i++) {
    out = alphabet[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateKey(): string {
  const body = keyPrefix + randomBase62(randomLength);
  return body + base62Checksum(body);
}

/** True when the text has the key's shape and its checksum matches. */
export function isWellFormedKey(text: string): boolean {
  if (!keyPattern.test(text)) return false;
  const body = text.slice(0, -checksumLength);
  return base62Checksum(body) === text.slice(-checksumLength);
}

/** SHA-256 of the key, the only form stored. One-shot `hash` (node ≥ 20.12): it runs on every request. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What may be shown of a key after creation: enough to recognise it, far too little to use it. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, keyPrefix.length + 6)}…`;
}

/** The key's last four characters (its checksum's), shown after the prefix. */
export function displaySuffix(key: string): string {
  return key.slice(-4);
}
