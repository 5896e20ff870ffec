import { applyThemeSchema, idSchema, leadsRpc, updateWorkspaceSchema } from '@voice/proto';
import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { updateById } from './approval-tool.js';

const themeId = idSchema('theme').describe('The theme, e.g. from service_list_themes');
const workspaceId = idSchema('workspace').describe('The workspace, e.g. from service_list_workspaces');

export const workspaceTools = [
  defineTool({
    name: 'service_list_themes',
    toolset: 'workspace',
    title: 'List themes',
    description: 'Themes of the voice agent (voice, greeting, tone, colors).',
    operation: leadsRpc.listThemes,
  }),
  defineTool({
    name: 'service_get_theme',
    toolset: 'workspace',
    title: 'Get a theme',
    description: 'One theme: the agent’s voice, greeting, tone, colors and logo, and whether it is the organization default.',
    operation: leadsRpc.getTheme,
    input: z.object({ theme_id: themeId }),
    rpcInput: (args) => ({ id: args.theme_id }),
  }),
  defineTool({
    name: 'service_apply_theme',
    toolset: 'workspace',
    title: 'Apply a theme to a workspace',
    description: 'Makes a theme the default of a workspace; returns the workspace.',
    operation: leadsRpc.applyTheme,
    annotations: { idempotentHint: true },
    input: applyThemeSchema.extend({ theme_id: themeId }),
    rpcInput: (args) => ({ id: args.theme_id, workspace_id: args.workspace_id }),
  }),
  defineTool({
    name: 'service_list_workspaces',
    toolset: 'workspace',
    title: 'List workspaces',
    description: 'The organization’s workspaces (offices, brands or teams).',
    operation: leadsRpc.listWorkspaces,
  }),
  defineTool({
    name: 'service_get_workspace',
    toolset: 'workspace',
    title: 'Get a workspace',
    description: 'One workspace with its time zone, phone numbers and default theme.',
    operation: leadsRpc.getWorkspace,
    input: z.object({ workspace_id: workspaceId }),
    rpcInput: (args) => ({ id: args.workspace_id }),
  }),
  defineTool({
    name: 'service_update_workspace',
    toolset: 'workspace',
    title: 'Update a workspace',
    description:
      'Changes a workspace’s name, slug, time zone, locale, phone numbers, default theme or metadata. Only the fields given change.',
    operation: leadsRpc.updateWorkspace,
    annotations: { idempotentHint: true },
    input: updateWorkspaceSchema.extend({ workspace_id: workspaceId }),
    rpcInput: updateById('workspace_id'),
  }),
];
