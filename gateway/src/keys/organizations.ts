import { ApiError, insertOutboxRows, newId, PendingEvents } from '@voice/kit';
import { isTestOrg, liveOrgOf, type Plan, planLimits, testTwinOf } from '@voice/proto';
import type { Organization, PrismaClient } from '../generated/prisma/client.js';
import { ensureTestTwin } from './store.js';

export function toOrganizationRecord(row: Organization) {
  return { id: row.id, object: 'organization' as const, name: row.name, plan: row.plan, created_at: row.createdAt.toISOString() };
}

/** An organization's name as given (the operator's `org create`, an owner's rename): trimmed, 1 to 200 characters. */
function organizationName(given: string): string {
  const name = given.trim();
  if (name.length === 0 || name.length > 200)
    throw new ApiError('invalid_request', 'The name must be 1 to 200 characters.', { param: 'name' });
  return name;
}

export async function createOrganization(prisma: PrismaClient, input: { name: string; plan: Plan }) {
  const name = organizationName(input.name);
  const row = await prisma.organization.create({ data: { id: newId('org'), name, plan: input.plan } });
  return toOrganizationRecord(row);
}

export async function renameOrganization(prisma: PrismaClient, orgId: string, givenName: string) {
  const name = organizationName(givenName);
  // The test twin (mode.ts in proto) keeps its organization's name.
  const renamed = await prisma.organization.updateMany({ where: { id: { in: [liveOrgOf(orgId), testTwinOf(orgId)] } }, data: { name } });
  if (renamed.count === 0) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
  return toOrganizationRecord(await getOrganization(prisma, orgId));
}

/** The organizations, without their test twins (mode.ts in proto), which are part of them, not customers. */
export async function listOrganizations(prisma: PrismaClient) {
  const rows = await prisma.organization.findMany({
    where: { NOT: { id: { startsWith: testTwinOf('org_') } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  return rows.map(toOrganizationRecord);
}

/** An organization; a test twin is made on first sight, so the console's test mode has one to show. */
export async function getOrganization(prisma: PrismaClient, orgId: string) {
  await ensureTestTwin(prisma, orgId);
  const row = await prisma.organization.findUnique({ where: { id: orgId } });
  if (!row) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
  return row;
}

/**
 * Changes the plan. Moving to a plan without read-write keys narrows every key of the organization to
 * `read` in the same transaction, so no key keeps a scope its plan does not allow. `org.plan_changed` is
 * written to the outbox in that transaction too: services that gate features by plan (webhooks) hear it
 * durably, even if NATS or they are down right now, once a gateway replica's relay publishes it.
 *
 * The test twin (mode.ts in proto), if it was made, changes with it: test mode has the plan's features.
 */
export async function setPlan(prisma: PrismaClient, orgId: string, plan: Plan) {
  if (isTestOrg(orgId)) {
    throw new ApiError('invalid_request', `${orgId} is a test twin: its plan follows ${liveOrgOf(orgId)}'s; set that one.`, {
      param: 'org',
    });
  }
  return prisma.$transaction(async (tx) => {
    const found = await tx.organization.findUnique({ where: { id: orgId } });
    if (!found) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
    const row = await tx.organization.update({ where: { id: orgId }, data: { plan } });
    const twin = await tx.organization.updateMany({ where: { id: testTwinOf(orgId) }, data: { plan } });
    const changed = twin.count > 0 ? [orgId, testTwinOf(orgId)] : [orgId];
    let narrowedKeys = 0;
    if (!planLimits[plan].readWriteKeys) {
      const result = await tx.apiKey.updateMany({ where: { orgId: { in: changed }, scope: 'read_write' }, data: { scope: 'read' } });
      narrowedKeys = result.count;
    }
    const events = new PendingEvents();
    for (const id of changed) events.add('org.plan_changed', id, { plan }, { aggregateId: id });
    await insertOutboxRows(tx, events.entries);
    return { organization: toOrganizationRecord(row), narrowed_keys: narrowedKeys };
  });
}
