import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62 } from '@voice/kit';
import { isTestOrg } from '@voice/proto';

/**
 * Bearer credential formats: a prefix + 32 base62 characters (about 190 random bits) + a 6-character
 * base62 CRC32 of everything before it. The checksum lets the gateway reject a mistyped or made-up
 * credential without a lookup, and lets secret scanners recognise a real one. The prefix says what it is:
 * `vk_live_` an API key, `vk_test_` a test key (its organization's test twin: mode.ts in proto), `vk_oat_` an
 * OAuth access token (short-lived, minted for a grant).
 */
const keyPrefixes = { live: 'vk_live_', test: 'vk_test_' } as const;
export const accessTokenPrefix = 'vk_oat_';
const randomLength = 32;
const checksumLength = 6;
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

function credentialFormat(prefix: string) {
  const pattern = new RegExp(`^${prefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`);
  return {
    generate(): string {
      const body = prefix + randomBase62(randomLength);
      return body + base62Checksum(body);
    },
    /** True when the text has the credential's shape and its checksum matches. */
    isWellFormed(text: string): boolean {
      if (!pattern.test(text)) return false;
      return base62Checksum(text.slice(0, -checksumLength)) === text.slice(-checksumLength);
    },
  };
}

const keyFormats = { live: credentialFormat(keyPrefixes.live), test: credentialFormat(keyPrefixes.test) };
const accessTokenFormat = credentialFormat(accessTokenPrefix);

/** A new API key for an organization: `vk_test_…` for a test twin, `vk_live_…` otherwise. */
export function generateKey(orgId: string): string {
  return keyFormats[isTestOrg(orgId) ? 'test' : 'live'].generate();
}
export const isWellFormedKey = (text: string) => keyFormats.live.isWellFormed(text) || keyFormats.test.isWellFormed(text);
export const generateAccessToken = accessTokenFormat.generate;
export const isWellFormedAccessToken = accessTokenFormat.isWellFormed;

/** SHA-256 of the key, the only form stored. One-shot `hash` (node ≥ 20.12): it runs on every request. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What may be shown of a key after creation: enough to recognise it, far too little to use it. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, keyPrefixes.live.length + 6)}…`;
}

/** The key's last four characters (its checksum's), shown after the prefix. */
export function displaySuffix(key: string): string {
  return key.slice(-4);
}
