import { ApiError, type Bus } from '@voice/kit';
import type { PrismaClient } from '../generated/prisma/client.js';
import { type KeyChange, keyChangesSubject } from './cache.js';
import { createKey, type KeyActor, type KeyGrant, type NewKeyInput, revokeKey, rotateKey } from './store.js';

/** Records when a key stops working where every gateway replica checks it on each request (quota/quota.ts). */
export type RecordKeyEnd = (end: { orgId: string; keyId: string; endsAt: Date; now: Date }) => Promise<void>;

/** What changing a key reaches: Postgres, the end marker in Redis, and (when connected) every replica's cache over NATS. */
export interface KeyChanges {
  prisma: PrismaClient;
  bus: Bus | undefined;
  recordKeyEnd: RecordKeyEnd;
}

/**
 * Postgres has the change already; without the marker a replica that cached the key accepts it until
 * its cache entry expires (or the broadcast, still sent, reaches it), so whoever changed it must hear of
 * it: the error is returned for the caller to throw after its broadcast. Running the command again is safe.
 */
async function recordEnd(record: RecordKeyEnd, end: Parameters<RecordKeyEnd>[0], change: string): Promise<ApiError | undefined> {
  try {
    await record(end);
    return undefined;
  } catch (error) {
    return new ApiError(
      'unavailable',
      `${change} in Postgres, but not recorded in Redis, where every gateway replica checks it on each request (${(error as Error).message}). ` +
        'Replicas that cached this key may accept it for up to KEY_CACHE_TTL_MS (30 s by default) past its end. Run the command again once Redis answers.',
    );
  }
}

export async function announceKeyChange(bus: Bus | undefined, change: KeyChange): Promise<void> {
  if (!bus) return;
  bus.broadcast(keyChangesSubject, change);
  await bus.flush();
}

export async function createAnnouncedKey(changes: KeyChanges, orgId: string, input: NewKeyInput) {
  const created = await createKey(changes.prisma, orgId, input);
  // A lookup of this key may have been cached as unknown moments ago.
  await announceKeyChange(changes.bus, { hashes: [created.hash] });
  return created;
}

/**
 * Rotates a key (store.ts) and makes the old key's end reach every replica. The NATS broadcast only
 * drops cached copies early; the end itself reaches every replica through `recordKeyEnd`.
 */
export async function rotateEverywhere(changes: KeyChanges, keyId: string, graceSeconds: number, actor: KeyActor = {}, now = new Date()) {
  const rotated = await rotateKey(changes.prisma, keyId, graceSeconds, now, actor);
  const endsAt = new Date(rotated.retired.expires_at ?? now);
  const failed = await recordEnd(changes.recordKeyEnd, { orgId: rotated.retired.org_id, keyId, endsAt, now }, `Key ${keyId} was rotated`);
  await announceKeyChange(changes.bus, { hashes: [rotated.hash, rotated.retiredHash] });
  if (failed) throw failed;
  return rotated;
}

/**
 * Revokes a key, or a grant (`kind`), in store.ts and makes the revocation reach every replica, as
 * `rotateEverywhere` does. A grant's end marker is under its id, which its access tokens count under, so
 * it ends all of them; the broadcast drops cached tokens by the grant's id.
 */
export async function revokeEverywhere(
  changes: KeyChanges,
  keyId: string,
  actor: KeyActor = {},
  now = new Date(),
  kind: KeyGrant['kind'] = 'key',
) {
  const revoked = await revokeKey(changes.prisma, keyId, now, actor, kind);
  const failed = await recordEnd(
    changes.recordKeyEnd,
    { orgId: revoked.record.org_id, keyId, endsAt: now, now },
    `${kind === 'key' ? 'Key' : 'Grant'} ${keyId} was revoked`,
  );
  await announceKeyChange(changes.bus, revoked.hash ? { hashes: [revoked.hash] } : { keyIds: [keyId] });
  if (failed) throw failed;
  return revoked;
}
