import { ApiError, newId } from '@voice/kit';
import type { CreateWorkspace, Identity, UpdateWorkspace, Workspace } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';
import { assertTheme, isUniqueViolation } from '../store/references.js';
import { deleteWorkspaceRow, findWorkspace, insertWorkspace, updateWorkspaceRow } from '../store/workspaces.js';
import { toWorkspace } from './records.js';

/** A URL-friendly slug from a name: "North Office (HQ)" → "north-office-hq". */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'workspace';
}

/** The canonical spelling of a valid time zone and locale ("america/new_york" → "America/New_York", "en-us" → "en-US"). */
export const canonicalTimezone = (timezone: string) => new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
export const canonicalLocale = (locale: string) => Intl.getCanonicalLocales(locale)[0] ?? locale;

const slugTaken = (slug: string) =>
  new ApiError('conflict', `A workspace with the slug "${slug}" already exists; choose another slug.`, { param: 'slug' });

export async function getWorkspace(deps: LeadsDeps, identity: Identity, id: string): Promise<Workspace> {
  return toWorkspace(await findWorkspace(deps.prisma, identity.org_id, id));
}

export async function createWorkspace(deps: LeadsDeps, identity: Identity, input: CreateWorkspace): Promise<Workspace> {
  const orgId = identity.org_id;
  await assertTheme(deps.prisma, orgId, input.default_theme_id, 'default_theme_id');
  const base = input.slug ?? slugify(input.name);
  // A slug the caller chose must be free; a derived one gets a short suffix until it is.
  for (let attempt = 0; ; attempt++) {
    const slug = attempt === 0 ? base : `${base}-${newId('workspace').slice(-4).toLowerCase()}`;
    try {
      const row = await insertWorkspace(deps.prisma, orgId, {
        id: newId('workspace'),
        name: input.name,
        slug,
        timezone: canonicalTimezone(input.timezone),
        locale: canonicalLocale(input.locale),
        phoneNumbers: [...new Set(input.phone_numbers)],
        defaultThemeId: input.default_theme_id ?? null,
        metadata: input.metadata,
      });
      return toWorkspace(row);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (input.slug !== undefined || attempt >= 5) throw slugTaken(slug);
    }
  }
}

export async function updateWorkspace(deps: LeadsDeps, identity: Identity, id: string, input: UpdateWorkspace): Promise<Workspace> {
  const orgId = identity.org_id;
  await findWorkspace(deps.prisma, orgId, id);
  await assertTheme(deps.prisma, orgId, input.default_theme_id, 'default_theme_id');
  try {
    const row = await updateWorkspaceRow(deps.prisma, orgId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.slug !== undefined ? { slug: input.slug } : {}),
      ...(input.timezone !== undefined ? { timezone: canonicalTimezone(input.timezone) } : {}),
      ...(input.locale !== undefined ? { locale: canonicalLocale(input.locale) } : {}),
      ...(input.phone_numbers !== undefined ? { phoneNumbers: [...new Set(input.phone_numbers)] } : {}),
      ...(input.default_theme_id !== undefined ? { defaultThemeId: input.default_theme_id } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    });
    return toWorkspace(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(input.slug ?? '');
    throw error;
  }
}

/** Deleting a workspace keeps its leads, sequences, invoices and projects; they lose the workspace link. */
export async function deleteWorkspace(deps: LeadsDeps, identity: Identity, id: string) {
  await deleteWorkspaceRow(deps.prisma, identity.org_id, id);
  return { id, object: 'workspace' as const, deleted: true as const };
}
