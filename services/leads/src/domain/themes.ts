import { newId } from '@voice/kit';
import type { CreateTheme, Identity, Theme, UpdateTheme, Workspace } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import { assertWorkspace } from '../store/references.js';
import { deleteThemeRow, findTheme, insertTheme, updateThemeRow } from '../store/themes.js';
import { updateWorkspaceRow } from '../store/workspaces.js';
import { toTheme, toWorkspace } from './records.js';

export async function getTheme(deps: LeadsDeps, identity: Identity, id: string): Promise<Theme> {
  return toTheme(await findTheme(deps.prisma, identity.org_id, id));
}

export async function createTheme(deps: LeadsDeps, identity: Identity, input: CreateTheme): Promise<Theme> {
  const row = await insertTheme(deps.prisma, identity.org_id, {
    id: newId('theme'),
    name: input.name,
    voice: input.voice,
    greeting: input.greeting,
    tone: input.tone,
    colors: input.colors,
    logoUrl: input.logo_url ?? null,
    isDefault: input.is_default,
  });
  return toTheme(row);
}

export async function updateTheme(deps: LeadsDeps, identity: Identity, id: string, input: UpdateTheme): Promise<Theme> {
  const row = await updateThemeRow(deps.prisma, identity.org_id, id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.voice !== undefined ? { voice: input.voice } : {}),
    ...(input.greeting !== undefined ? { greeting: input.greeting } : {}),
    ...(input.tone !== undefined ? { tone: input.tone } : {}),
    ...(input.colors !== undefined ? { colors: input.colors } : {}),
    ...(input.logo_url !== undefined ? { logoUrl: input.logo_url } : {}),
    ...(input.is_default !== undefined ? { isDefault: input.is_default } : {}),
  });
  return toTheme(row);
}

/** Workspaces that used the theme as their default fall back to the organization default. */
export async function deleteTheme(deps: LeadsDeps, identity: Identity, id: string) {
  await deleteThemeRow(deps.prisma, identity.org_id, id);
  return { id, object: 'theme' as const, deleted: true as const };
}

/** Makes a theme the default of one workspace. */
export async function applyTheme(deps: LeadsDeps, identity: Identity, themeId: string, workspaceId: string): Promise<Workspace> {
  const orgId = identity.org_id;
  await findTheme(deps.prisma, orgId, themeId);
  await assertWorkspace(deps.prisma, orgId, workspaceId);
  return toWorkspace(await updateWorkspaceRow(deps.prisma, orgId, workspaceId, { defaultThemeId: themeId }));
}
