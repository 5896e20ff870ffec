import { ApiError, insertOutboxRows, newId, PendingEvents } from '@voice/kit';
import { type Plan, planLimits } from '@voice/proto';
import type { Organization, PrismaClient } from '../generated/prisma/client.js';

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
  const renamed = await prisma.organization.updateMany({ where: { id: orgId }, data: { name } });
  if (renamed.count === 0) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
  return toOrganizationRecord(await getOrganization(prisma, orgId));
}

export async function listOrganizations(prisma: PrismaClient) {
  const rows = await prisma.organization.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(toOrganizationRecord);
}

export async function getOrganization(prisma: PrismaClient, orgId: string) {
  const row = await prisma.organization.findUnique({ where: { id: orgId } });
  if (!row) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
  return row;
}

/**
 * Changes the plan. Moving to a plan without read-write keys narrows every key of the organization to
 * `read` in the same transaction, so no key keeps a scope its plan does not allow. `org.plan_changed` is
 * written to the outbox in that transaction too: services that gate features by plan (webhooks) hear it
 * durably, even if NATS or they are down right now, once a gateway replica's relay publishes it.
 */
export async function setPlan(prisma: PrismaClient, orgId: string, plan: Plan) {
  return prisma.$transaction(async (tx) => {
    const found = await tx.organization.findUnique({ where: { id: orgId } });
    if (!found) throw new ApiError('not_found', `No organization ${orgId}.`, { param: 'org' });
    const row = await tx.organization.update({ where: { id: orgId }, data: { plan } });
    let narrowedKeys = 0;
    if (!planLimits[plan].readWriteKeys) {
      const result = await tx.apiKey.updateMany({ where: { orgId, scope: 'read_write' }, data: { scope: 'read' } });
      narrowedKeys = result.count;
    }
    const events = new PendingEvents();
    events.add('org.plan_changed', orgId, { plan }, { aggregateId: orgId });
    await insertOutboxRows(tx, events.entries);
    return { organization: toOrganizationRecord(row), narrowed_keys: narrowedKeys };
  });
}
