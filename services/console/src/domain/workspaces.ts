import type { Bus, Logger } from '@voice/kit';
import { type ListThemesQuery, type ListWorkspacesQuery, leadsRpc, type UpdateWorkspace } from '@voice/proto';
import { audited } from './console-actions.js';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** Rows of one page of the workspaces list and of the themes list. */
export const workspacesPageSize = 25;
export const themesPageSize = 25;

export const workspacesPath = '/dashboard/workspaces';
export const themesPath = `${workspacesPath}/themes`;
export const workspacePath = (id: string) => `${workspacesPath}/${id}`;
export const themePath = (id: string) => `${themesPath}/${id}`;
export const applyThemePath = (workspaceId: string) => `${workspacePath(workspaceId)}/apply-theme`;

/** The workspace form's fields, as typed: the leads service judges them (its refusals name the field). */
export const workspaceFormFields = ['name', 'slug', 'timezone', 'locale', 'phone_numbers'] as const;
export type WorkspaceForm = Record<(typeof workspaceFormFields)[number], string>;

export function workspaceFormOf(fields: Record<string, string>): WorkspaceForm {
  return Object.fromEntries(workspaceFormFields.map((name) => [name, fields[name] ?? ''])) as WorkspaceForm;
}

/**
 * The update the form asks for: every field it shows, as typed (trimmed), phone numbers one per line or
 * separated by commas, each with spaces, dots, dashes and brackets dropped. Nothing is checked here: the
 * operation's own validation answers, on the field its `param` names.
 */
export function workspaceUpdateOf(form: WorkspaceForm): UpdateWorkspace {
  return {
    name: form.name.trim(),
    slug: form.slug.trim(),
    timezone: form.timezone.trim(),
    locale: form.locale.trim(),
    phone_numbers: form.phone_numbers
      .split(/[\n,]/)
      .map((number) => number.replace(/[\s().-]/g, ''))
      .filter(Boolean),
  };
}

/**
 * The leads service's workspace and theme operations for one person and request, as the person (`read` for
 * members, whom the service refuses any change): the operations the API and the MCP `workspace` toolset use.
 * Changes are audited with the person as actor. Updating and applying set values, so a second submit of the
 * same form changes nothing more.
 */
export async function workspacesFor(ctx: { bus: Bus; logger: Logger }, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    list: (query: ListWorkspacesQuery) => ctx.bus.call(leadsRpc.listWorkspaces, identity, query),
    get: (id: string) => ctx.bus.call(leadsRpc.getWorkspace, identity, { id }),
    update: (id: string, input: UpdateWorkspace) =>
      audited(ctx, identity, { path: workspacePath(id), status: 200 }, () =>
        ctx.bus.call(leadsRpc.updateWorkspace, identity, { id, ...input }),
      ),
    themes: (query: ListThemesQuery) => ctx.bus.call(leadsRpc.listThemes, identity, query),
    theme: (id: string) => ctx.bus.call(leadsRpc.getTheme, identity, { id }),
    applyTheme: (workspaceId: string, themeId: string) =>
      audited(ctx, identity, { path: applyThemePath(workspaceId), status: 200 }, () =>
        ctx.bus.call(leadsRpc.applyTheme, identity, { id: themeId, workspace_id: workspaceId }),
      ),
  };
}
export type OrganizationWorkspaces = Awaited<ReturnType<typeof workspacesFor>>;
