import type { Bus } from '@voice/kit';
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

async function announce(bus: Bus | undefined, change: { hashes?: string[]; orgId?: string }): Promise<void> {
  if (!bus) return;
  bus.broadcast(keyChangesSubject, change);
  await bus.flush();
}

/** The operator's commands, shared by the CLI and the tests. Raw keys appear only in these results. */
export async function runAdminCommand(prisma: PrismaClient, bus: Bus | undefined, command: AdminCommand): Promise<unknown> {
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
      const rotated = await rotateKey(prisma, command.keyId, command.graceSeconds);
      await announce(bus, { hashes: [rotated.hash, rotated.retiredHash] });
      return {
        ...rotated.record,
        key: rotated.key,
        replaces: rotated.retired,
        note: `Store this key now: it is shown only once. The old key works until ${rotated.retired.expires_at}.`,
      };
    }
    case 'key.revoke': {
      const revoked = await revokeKey(prisma, command.keyId);
      await announce(bus, { hashes: [revoked.hash] });
      return revoked.record;
    }
  }
}
