import type { Bus } from '@voice/kit';
import type { Plan, Scope } from '@voice/proto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { announceKeyChange, createAnnouncedKey, type RecordKeyEnd, revokeEverywhere, rotateEverywhere } from '../keys/lifecycle.js';
import { createOrganization, listOrganizations, setPlan } from '../keys/organizations.js';
import { listKeys } from '../keys/store.js';

export type { RecordKeyEnd };

export type AdminCommand =
  | { kind: 'org.create'; name: string; plan: Plan }
  | { kind: 'org.list' }
  | { kind: 'org.set-plan'; orgId: string; plan: Plan }
  | { kind: 'key.create'; orgId: string; scope: Scope; monthlyQuota: number }
  | { kind: 'key.list'; orgId: string }
  | { kind: 'key.rotate'; keyId: string; graceSeconds: number }
  | { kind: 'key.revoke'; keyId: string };

/**
 * The operator's commands, shared by the CLI and the tests. Raw keys appear only in these results. Key
 * changes go through keys/lifecycle.ts, as the console's do, so a key's end reaches every replica.
 */
export async function runAdminCommand(
  prisma: PrismaClient,
  bus: Bus | undefined,
  command: AdminCommand,
  recordKeyEnd: RecordKeyEnd,
): Promise<unknown> {
  const changes = { prisma, bus, recordKeyEnd };
  switch (command.kind) {
    case 'org.create':
      return createOrganization(prisma, command);
    case 'org.list':
      return { data: await listOrganizations(prisma) };
    case 'org.set-plan': {
      const result = await setPlan(prisma, command.orgId, command.plan);
      await announceKeyChange(bus, { orgId: command.orgId });
      return result;
    }
    case 'key.create': {
      const created = await createAnnouncedKey(changes, command.orgId, command);
      return { ...created.record, key: created.key, note: 'Store this key now: it is shown only once.' };
    }
    case 'key.list':
      return { data: await listKeys(prisma, command.orgId) };
    case 'key.rotate': {
      const rotated = await rotateEverywhere(changes, command.keyId, command.graceSeconds);
      return {
        ...rotated.record,
        key: rotated.key,
        replaces: rotated.retired,
        note: `Store this key now: it is shown only once. The old key works until ${rotated.retired.expires_at}.`,
      };
    }
    case 'key.revoke': {
      const revoked = await revokeEverywhere(changes, command.keyId);
      return revoked.record;
    }
  }
}
