import { ApiError, newId } from '@voice/kit';
import type { CreateProject, Identity, Project, UpdateProject } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import type { Project as ProjectRow } from '../generated/prisma/client.js';
import { deleteProjectRow, findProject, insertProject, updateProjectIn } from '../store/projects.js';
import { assertLead, assertWorkspace } from '../store/references.js';
import { withEvents } from './events.js';
import { toProject } from './records.js';

// A project is active, then ready, then delivered. Delivery is its own operation (it tells the customer);
// a delivered project is final.

const dateOnly = (value: string | null | undefined) => (value ? new Date(`${value}T00:00:00.000Z`) : null);

const delivered = (row: ProjectRow) =>
  new ApiError(
    'conflict',
    `This project was delivered${row.deliveredAt ? ` at ${row.deliveredAt.toISOString()}` : ''}; it can no longer change.`,
    {
      param: 'id',
    },
  );

export async function getProject(deps: LeadsDeps, identity: Identity, id: string): Promise<Project> {
  return toProject(await findProject(deps.prisma, identity.org_id, id));
}

export async function createProject(deps: LeadsDeps, identity: Identity, input: CreateProject): Promise<Project> {
  const orgId = identity.org_id;
  await assertLead(deps.prisma, orgId, input.lead_id);
  await assertWorkspace(deps.prisma, orgId, input.workspace_id);
  const row = await insertProject(deps.prisma, orgId, {
    id: newId('project'),
    leadId: input.lead_id,
    workspaceId: input.workspace_id ?? null,
    name: input.name,
    status: input.status,
    dueDate: dateOnly(input.due_date),
    deliverables: input.deliverables,
    notes: input.notes ?? null,
  });
  return toProject(row);
}

export async function updateProject(deps: LeadsDeps, identity: Identity, id: string, input: UpdateProject): Promise<Project> {
  const orgId = identity.org_id;
  const before = await findProject(deps.prisma, orgId, id);
  if (before.status === 'delivered') throw delivered(before);
  const after = await updateProjectIn(deps.prisma, orgId, id, ['active', 'ready'], {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.due_date !== undefined ? { dueDate: dateOnly(input.due_date) } : {}),
    ...(input.deliverables !== undefined ? { deliverables: input.deliverables } : {}),
    ...(input.notes !== undefined ? { notes: input.notes } : {}),
  });
  if (!after) throw delivered(await findProject(deps.prisma, orgId, id));
  return toProject(after);
}

export async function deleteProject(deps: LeadsDeps, identity: Identity, id: string) {
  await deleteProjectRow(deps.prisma, identity.org_id, id);
  return { id, object: 'project' as const, deleted: true as const };
}

/** Delivers the project to its customer: final, and `project.delivered` tells the delivery channels. */
export async function deliverProject(deps: LeadsDeps, identity: Identity, id: string): Promise<Project> {
  const orgId = identity.org_id;
  const before = await findProject(deps.prisma, orgId, id);
  if (before.status === 'delivered') throw delivered(before);
  if (before.leadId === null) throw new ApiError('invalid_request', 'The project has no customer to deliver to.', { param: 'lead_id' });
  return withEvents(deps, async (tx, events) => {
    const after = await updateProjectIn(tx, orgId, id, ['active', 'ready'], { status: 'delivered', deliveredAt: new Date() });
    if (!after) throw delivered(await findProject(tx, orgId, id));
    const project = toProject(after);
    events.add('project.delivered', orgId, project, { aggregateId: id });
    return project;
  });
}
