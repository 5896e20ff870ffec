// Workspaces: an organization's offices or brands, each with its numbers, time zone and default theme.
import { z } from 'zod';
import { e164Schema, metadataSchema, timestampSchema } from '../common.js';
import { idSchema } from '../ids.js';
import { listQuerySchema, pageSchema } from '../pagination.js';
import { bcp47LocaleSchema, ianaTimezoneSchema } from './shared.js';

export const workspaceSchema = z
  .object({
    id: idSchema('workspace'),
    object: z.literal('workspace'),
    name: z.string(),
    slug: z.string(),
    timezone: z.string(),
    locale: z.string(),
    phone_numbers: z.array(e164Schema),
    default_theme_id: z.string().nullable(),
    metadata: metadataSchema,
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Workspace' });
export type Workspace = z.infer<typeof workspaceSchema>;

const slugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens, e.g. north-office');

export const createWorkspaceSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    slug: slugSchema.optional().describe('Unique within the organization; derived from the name when omitted.'),
    timezone: ianaTimezoneSchema.default('UTC'),
    locale: bcp47LocaleSchema.default('en-US'),
    phone_numbers: z.array(e164Schema).max(20).default([]),
    default_theme_id: idSchema('theme').nullable().optional(),
    metadata: metadataSchema.default({}),
  })
  .strict();
export type CreateWorkspace = z.infer<typeof createWorkspaceSchema>;

export const updateWorkspaceSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    slug: slugSchema.optional(),
    timezone: ianaTimezoneSchema.optional(),
    locale: bcp47LocaleSchema.optional(),
    phone_numbers: z.array(e164Schema).max(20).optional(),
    default_theme_id: idSchema('theme').nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type UpdateWorkspace = z.infer<typeof updateWorkspaceSchema>;

export const listWorkspacesQuerySchema = listQuerySchema;
export type ListWorkspacesQuery = z.infer<typeof listWorkspacesQuerySchema>;
export const workspacePageSchema = pageSchema(workspaceSchema).meta({ id: 'WorkspacePage' });
