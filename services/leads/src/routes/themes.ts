import { type HttpApp, identityOf } from '@voice/kit';
import {
  applyThemeSchema,
  createThemeSchema,
  deletedSchema,
  idempotencyKeyHeadersSchema,
  idSchema,
  leadsRpc,
  listThemesQuerySchema,
  themePageSchema,
  themeSchema,
  updateThemeSchema,
  workspaceSchema,
} from '@voice/proto';
import { z } from 'zod';
import type { LeadsDeps } from '../deps.js';
import { applyTheme, createTheme, deleteTheme, getTheme, updateTheme } from '../domain/themes.js';
import { listThemes } from '../store/themes.js';
import { once } from './common.js';

const params = z.object({ id: idSchema('theme') });
const tags = ['themes'];

export function themeRoutes(app: HttpApp, deps: LeadsDeps): void {
  app.get(
    '/api/v1/themes',
    {
      schema: { tags, summary: 'List themes, newest first', querystring: listThemesQuerySchema, response: { 200: themePageSchema } },
      config: { operation: leadsRpc.listThemes },
    },
    async (request) => listThemes(deps.prisma, identityOf(request).org_id, request.query),
  );
  app.post(
    '/api/v1/themes',
    {
      schema: {
        tags,
        summary: 'Create a theme',
        headers: idempotencyKeyHeadersSchema,
        body: createThemeSchema,
        response: { 201: themeSchema },
      },
      config: { operation: leadsRpc.createTheme },
    },
    async (request, reply) => once(deps, request, reply, 'themes.create', (identity) => createTheme(deps, identity, request.body)),
  );
  app.get(
    '/api/v1/themes/:id',
    { schema: { tags, summary: 'Get a theme', params, response: { 200: themeSchema } }, config: { operation: leadsRpc.getTheme } },
    async (request) => getTheme(deps, identityOf(request), request.params.id),
  );
  app.patch(
    '/api/v1/themes/:id',
    {
      schema: { tags, summary: 'Change a theme', params, body: updateThemeSchema, response: { 200: themeSchema } },
      config: { operation: leadsRpc.updateTheme },
    },
    async (request) => updateTheme(deps, identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/themes/:id',
    {
      schema: { tags, summary: 'Delete a theme', params, response: { 200: deletedSchema('theme') } },
      config: { operation: leadsRpc.deleteTheme },
    },
    async (request) => deleteTheme(deps, identityOf(request), request.params.id),
  );
  app.post(
    '/api/v1/themes/:id/apply',
    {
      schema: {
        tags,
        summary: 'Make the theme a workspace’s default; returns the workspace',
        params,
        body: applyThemeSchema,
        response: { 200: workspaceSchema },
      },
      config: { operation: leadsRpc.applyTheme },
    },
    async (request) => applyTheme(deps, identityOf(request), request.params.id, request.body.workspace_id),
  );
}
