import { createHash, randomFillSync } from 'node:crypto';
import { type IdKind, idPrefixes } from '@voice/proto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn from a pool refilled 8 KiB at a time, as node's own randomUUID does: one
 * `randomBytes` call per id (the gateway makes two per request) costs more than the rest of the id.
 * Each byte is handed out once.
 */
const pool = Buffer.alloc(8 * 1024);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

const alphabetCodes = Buffer.from(alphabet, 'latin1');
/** The characters of one id, written in place: one string per id instead of one per character. */
const chars = Buffer.alloc(256);

/** Base62 text of `length` characters from a CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  const target = length <= chars.length ? chars : Buffer.alloc(length);
  let written = 0;
  while (written < length) {
    const byte = nextRandomByte();
    if (byte < 248) target[written++] = alphabetCodes[byte % 62] as number;
  }
  return target.toString('latin1', 0, length);
}

/** A new prefixed id, e.g. `call_4f9XzQ2mN7bR1tY8kLp0`: 20 base62 characters, about 119 bits. */
export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${randomBase62(20)}`;
}

declare const eventIdBrand: unique symbol;
/** An event id made by `eventId`, the one generator of event ids: publishers and the outbox take no other. */
export type EventId = string & { readonly [eventIdBrand]: true };

/**
 * The id of a new event, in the shape the API publishes (`evt_` and 8 to 40 base62 characters,
 * `idSchema('event')`): webhook deliveries and their log carry it, and a response schema refuses any other.
 * Random, or derived from `cause` (what happened, e.g. `<record id>:<new state>`) when a retried step must
 * record the same event again, so that the outbox and JetStream drop the repeat and consumers can dedupe:
 * then 32 hex digits (128 bits) of its SHA-256.
 */
export function eventId(cause?: string): EventId {
  const body = cause === undefined ? randomBase62(20) : createHash('sha256').update(cause).digest('hex').slice(0, 32);
  return `${idPrefixes.event}_${body}` as EventId;
}
