// Themes: how the agent sounds and greets, and the colors and logo of a workspace.
import { z } from 'zod';
import { timestampSchema } from '../common.js';
import { idSchema } from '../ids.js';
import { listQuerySchema, pageSchema } from '../pagination.js';

const hexColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color, e.g. #1A2B3C')
  .describe('Hex color, #RRGGBB');

export const themeTones = ['friendly', 'professional', 'casual', 'formal', 'enthusiastic', 'empathetic'] as const;

export const themeColorsSchema = z
  .object({
    primary: hexColorSchema,
    accent: hexColorSchema.optional(),
    background: hexColorSchema.optional(),
    text: hexColorSchema.optional(),
  })
  .strict();

export const themeSchema = z
  .object({
    id: idSchema('theme'),
    object: z.literal('theme'),
    name: z.string(),
    voice: z.string().describe('Voice the agent speaks with, as the voice provider names it'),
    greeting: z.string(),
    tone: z.enum(themeTones),
    colors: themeColorsSchema,
    logo_url: z.string().nullable(),
    is_default: z.boolean().describe('The organization default, used by workspaces without a theme of their own; at most one'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Theme' });
export type Theme = z.infer<typeof themeSchema>;

const logoUrlSchema = z
  .url({ protocol: /^https$/ })
  .max(2048)
  .describe('https URL of the logo');

export const createThemeSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    voice: z.string().trim().min(1).max(100).default('alloy'),
    greeting: z.string().trim().min(1).max(1000),
    tone: z.enum(themeTones).default('friendly'),
    colors: themeColorsSchema.default({ primary: '#1F6FEB' }),
    logo_url: logoUrlSchema.nullable().optional(),
    is_default: z.boolean().default(false),
  })
  .strict();
export type CreateTheme = z.infer<typeof createThemeSchema>;

export const updateThemeSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    voice: z.string().trim().min(1).max(100).optional(),
    greeting: z.string().trim().min(1).max(1000).optional(),
    tone: z.enum(themeTones).optional(),
    colors: themeColorsSchema.optional(),
    logo_url: logoUrlSchema.nullable().optional(),
    is_default: z.boolean().optional(),
  })
  .strict();
export type UpdateTheme = z.infer<typeof updateThemeSchema>;

export const listThemesQuerySchema = listQuerySchema;
export type ListThemesQuery = z.infer<typeof listThemesQuerySchema>;
export const themePageSchema = pageSchema(themeSchema).meta({ id: 'ThemePage' });

export const applyThemeSchema = z.object({ workspace_id: idSchema('workspace') }).strict();
