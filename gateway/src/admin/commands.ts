import { ApiError, type Bus } from '@voice/kit';
import type { Plan, Scope } from '@voice/proto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { keyChangesSubject } from '../keys/cache.js';
import { createOrganization, listOrganizations, setPlan } from '../keys/organizations.js';
import { createKey, listKeys, revokeKey, rotateKey } from '../keys/store.js';

export type AdminCommand =
  | { kind: 'org.create'; name: string; plan: Plan }
  | { kind: 'org.list' }
  | { kind: 'org.set-plan'; orgId: string; plan: Plan }
  | { kind: 'key.create'; orgId: string; scope: Scope; monthlyQuota: number }
  | { kind: 'key.list'; orgId: string }
  | { kind: 'key.rotate'; keyId: string; graceSeconds: number }
  | { kind: 'key.revoke'; keyId: string };

/** Records when a key stops working where every gateway replica checks it on each request (quota/quota.ts). */
export type RecordKeyEnd = (end: { orgId: string; keyId: string; endsAt: Date; now: Date }) => Promise<void>;

/**
 * Postgres has the change already; without the marker a replica that cached the key accepts it until
 * its cache entry expires (or the broadcast, still sent, reaches it), so the operator must hear of it:
 * the error is returned for the command to throw after its broadcast. Running the command again is safe.
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

async function announce(bus: Bus | undefined, change: { hashes?: string[]; orgId?: string }): Promise<void> {
  if (!bus) return;
  bus.broadcast(keyChangesSubject, change);
  await bus.flush();
}

/**
 * The operator's commands, shared by the CLI and the tests. Raw keys appear only in these results. The
 * NATS broadcast only drops cached copies early; a key's end reaches every replica through `recordKeyEnd`.
 */
export async function runAdminCommand(
  prisma: PrismaClient,
  bus: Bus | undefined,
  command: AdminCommand,
  recordKeyEnd: RecordKeyEnd,
): Promise<unknown> {
  switch (command.kind) {
    case 'org.create':
      return createOrganization(prisma, command);
    case 'org.list':
      return { data: await listOrganizations(prisma) };
    case 'org.set-plan': {
      const result = await setPlan(prisma, command.orgId, command.plan);
      await announce(bus, { orgId: command.orgId });
      return result;
    }
    case 'key.create': {
      const created = await createKey(prisma, command.orgId, command);
      // A lookup of this key may have been cached as unknown moments ago.
      await announce(bus, { hashes: [created.hash] });
      return { ...created.record, key: created.key, note: 'Store this key now: it is shown only once.' };
    }
    case 'key.list':
      return { data: await listKeys(prisma, command.orgId) };
    case 'key.rotate': {
      const now = new Date();
      const rotated = await rotateKey(prisma, command.keyId, command.graceSeconds, now);
      const endsAt = new Date(rotated.retired.expires_at ?? now);
      const failed = await recordEnd(
        recordKeyEnd,
        { orgId: rotated.retired.org_id, keyId: command.keyId, endsAt, now },
        `Key ${command.keyId} was rotated`,
      );
      await announce(bus, { hashes: [rotated.hash, rotated.retiredHash] });
      if (failed) throw failed;
      return {
        ...rotated.record,
        key: rotated.key,
        replaces: rotated.retired,
        note: `Store this key now: it is shown only once. The old key works until ${rotated.retired.expires_at}.`,
      };
    }
    case 'key.revoke': {
      const now = new Date();
      const revoked = await revokeKey(prisma, command.keyId, now);
      const failed = await recordEnd(
        recordKeyEnd,
        { orgId: revoked.record.org_id, keyId: command.keyId, endsAt: now, now },
        `Key ${command.keyId} was revoked`,
      );
      await announce(bus, { hashes: [revoked.hash] });
      if (failed) throw failed;
      return revoked.record;
    }
  }
}
