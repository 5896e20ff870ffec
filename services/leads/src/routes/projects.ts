import { type HttpApp, identityOf } from '@voice/kit';
import {
  createProjectSchema,
  deletedSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  leadsRpc,
  listProjectsQuerySchema,
  projectPageSchema,
  projectSchema,
  updateProjectSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
import { createProject, deleteProject, deliverProject, getProject, updateProject } from '../domain/projects.js';
import { listProjects } from '../store/projects.js';
import { once } from './common.js';

const params = z.object({ id: idSchema('project') });
const tags = ['projects'];

export function projectRoutes(app: HttpApp, deps: LeadsDeps): void {
  app.get(
    '/api/v1/projects',
    {
      schema: {
        tags,
        summary: 'List projects by status, customer or workspace',
        querystring: listProjectsQuerySchema,
        response: { 200: projectPageSchema },
      },
      config: { operation: leadsRpc.listProjects },
    },
    async (request) => listProjects(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.post(
    '/api/v1/projects',
    {
      schema: {
        tags,
        summary: 'Create a project',
        headers: idempotencyKeyHeadersSchema,
        body: createProjectSchema,
        response: { 201: projectSchema },
      },
      config: { operation: leadsRpc.createProject },
    },
    async (request, reply) => once(deps, request, reply, 'projects.create', (identity) => createProject(deps, identity, request.body)),
  );
  app.get(
    '/api/v1/projects/:id',
    { schema: { tags, summary: 'Get a project', params, response: { 200: projectSchema } }, config: { operation: leadsRpc.getProject } },
    async (request) => getProject(deps, identityOf(request), request.params.id),
  );
  app.patch(
    '/api/v1/projects/:id',
    {
      schema: {
        tags,
        summary: 'Change a project: name, status, due date, deliverables, notes',
        params,
        body: updateProjectSchema,
        response: { 200: projectSchema },
      },
      config: { operation: leadsRpc.updateProject },
    },
    async (request) => updateProject(deps, identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/projects/:id',
    {
      schema: { tags, summary: 'Delete a project', params, response: { 200: deletedSchema('project') } },
      config: { operation: leadsRpc.deleteProject },
    },
    async (request) => deleteProject(deps, identityOf(request), request.params.id),
  );
  app.post(
    '/api/v1/projects/:id/deliver',
    {
      schema: {
        tags,
        summary: 'Deliver the project to its customer (irreversible)',
        params,
        headers: idempotencyKeyHeadersSchema,
        response: { 200: projectSchema },
      },
      config: { operation: leadsRpc.deliverProject },
    },
    async (request, reply) =>
      once(deps, request, reply, 'projects.deliver', (identity) => deliverProject(deps, identity, request.params.id), 200),
  );
}
