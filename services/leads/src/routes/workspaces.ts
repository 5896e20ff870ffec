import { type HttpApp, identityOf } from '@voice/kit';
import {
  createWorkspaceSchema,
  deletedSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  leadsRpc,
  listWorkspacesQuerySchema,
  updateWorkspaceSchema,
  workspacePageSchema,
  workspaceSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
import { createWorkspace, deleteWorkspace, getWorkspace, updateWorkspace } from '../domain/workspaces.js';
import { listWorkspaces } from '../store/workspaces.js';
import { once } from './common.js';

const params = z.object({ id: idSchema('workspace') });
const tags = ['workspaces'];

export function workspaceRoutes(app: HttpApp, deps: LeadsDeps): void {
  app.get(
    '/api/v1/workspaces',
    {
      schema: {
        tags,
        summary: 'List workspaces, newest first',
        querystring: listWorkspacesQuerySchema,
        response: { 200: workspacePageSchema },
      },
      config: { operation: leadsRpc.listWorkspaces },
    },
    async (request) => listWorkspaces(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.post(
    '/api/v1/workspaces',
    {
      schema: {
        tags,
        summary: 'Create a workspace',
        headers: idempotencyKeyHeadersSchema,
        body: createWorkspaceSchema,
        response: { 201: workspaceSchema },
      },
      config: { operation: leadsRpc.createWorkspace },
    },
    async (request, reply) => once(deps, request, reply, 'workspaces.create', (identity) => createWorkspace(deps, identity, request.body)),
  );
  app.get(
    '/api/v1/workspaces/:id',
    {
      schema: { tags, summary: 'Get a workspace', params, response: { 200: workspaceSchema } },
      config: { operation: leadsRpc.getWorkspace },
    },
    async (request) => getWorkspace(deps, identityOf(request), request.params.id),
  );
  app.patch(
    '/api/v1/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Change a workspace: name, slug, timezone, locale, numbers, default theme',
        params,
        body: updateWorkspaceSchema,
        response: { 200: workspaceSchema },
      },
      config: { operation: leadsRpc.updateWorkspace },
    },
    async (request) => updateWorkspace(deps, identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Delete a workspace; its leads and other records stay, without the workspace',
        params,
        response: { 200: deletedSchema('workspace') },
      },
      config: { operation: leadsRpc.deleteWorkspace },
    },
    async (request) => deleteWorkspace(deps, identityOf(request), request.params.id),
  );
}
