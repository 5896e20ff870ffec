import { ApiError } from '@voice/kit';
import {
  applyThemeSchema,
  idSchema,
  leadsRpc,
  listThemesQuerySchema,
  listWorkspacesQuerySchema,
  themePageSchema,
  themeSchema,
  updateWorkspaceSchema,
  workspacePageSchema,
  workspaceSchema,
} from '@voice/proto';
import { z } from 'zod';
import { defineTool, readHints } from '../mcp/tool.js';
import { changedFields } from './approval-tool.js';

const themeId = idSchema('theme').describe('The theme, e.g. from service_list_themes');
const workspaceId = idSchema('workspace').describe('The workspace, e.g. from service_list_workspaces');

export const workspaceTools = [
  defineTool({
    name: 'service_list_themes',
    title: 'List themes',
    description: 'Themes of the voice agent (voice, greeting, tone, colors), newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listThemesQuerySchema,
    output: themePageSchema,
    run: (args, { call }) => call(leadsRpc.listThemes, args),
  }),
  defineTool({
    name: 'service_get_theme',
    title: 'Get a theme',
    description: 'One theme: the agent’s voice, greeting, tone, colors and logo, and whether it is the organization default.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ theme_id: themeId }),
    output: themeSchema,
    run: (args, { call }) => call(leadsRpc.getTheme, { id: args.theme_id }),
  }),
  defineTool({
    name: 'service_apply_theme',
    title: 'Apply a theme to a workspace',
    description: 'Makes a theme the default of a workspace; returns the workspace.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: applyThemeSchema.extend({ theme_id: themeId }),
    output: workspaceSchema,
    run: (args, { call }) => call(leadsRpc.applyTheme, { id: args.theme_id, workspace_id: args.workspace_id }),
  }),
  defineTool({
    name: 'service_list_workspaces',
    title: 'List workspaces',
    description: 'The organization’s workspaces (offices, brands or teams), newest first, cursor-paged.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: listWorkspacesQuerySchema,
    output: workspacePageSchema,
    run: (args, { call }) => call(leadsRpc.listWorkspaces, args),
  }),
  defineTool({
    name: 'service_get_workspace',
    title: 'Get a workspace',
    description: 'One workspace with its time zone, phone numbers and default theme.',
    scope: 'read',
    approval: false,
    annotations: readHints,
    input: z.object({ workspace_id: workspaceId }),
    output: workspaceSchema,
    run: (args, { call }) => call(leadsRpc.getWorkspace, { id: args.workspace_id }),
  }),
  defineTool({
    name: 'service_update_workspace',
    title: 'Update a workspace',
    description:
      'Changes a workspace’s name, slug, time zone, locale, phone numbers, default theme or metadata. Only the fields given change.',
    scope: 'read-write',
    approval: false,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: updateWorkspaceSchema.extend({ workspace_id: workspaceId }),
    output: workspaceSchema,
    run: async ({ workspace_id, ...changes }, { call }) => {
      if (changedFields(changes, 'workspace_id').length === 0) {
        throw new ApiError('invalid_request', 'Give at least one field to change besides workspace_id.', { param: 'workspace_id' });
      }
      return call(leadsRpc.updateWorkspace, { id: workspace_id, ...changes });
    },
  }),
];
