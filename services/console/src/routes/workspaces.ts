import { ApiError, type Bus } from '@voice/kit';
import { idSchema, leadsRpc, type Theme, type Workspace } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { pageQuerySchema } from '../domain/list-query.js';
import { checkedQuery } from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import {
  type OrganizationWorkspaces,
  themesPageSize,
  workspaceFormFields,
  workspaceFormOf,
  workspacePath,
  workspacesFor,
  workspacesPageSize,
  workspaceUpdateOf,
} from '../domain/workspaces.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { notFoundAs, paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import {
  applyThemePage,
  themePage,
  themesListPage,
  type WorkspaceFormView,
  workspacePage,
  workspacesListPage,
} from '../views/workspaces.js';

const workspaceParams = z.object({ id: idSchema('workspace') });
const themeParams = z.object({ id: idSchema('theme') });
/** The theme a preview or an apply names (a query or a form field): one that is no theme id is a 400 naming it. */
const themeChoice = z.object({
  theme_id: z
    .string('Choose a theme from the list.')
    .regex(/^thm_[0-9A-Za-z]{8,40}$/, 'Choose a theme from the list: a theme id is thm_ followed by letters and digits.'),
});

const noWorkspace = 'Your organization has no workspace with this id.';
const noTheme = 'Your organization has no theme with this id.';

/** The form field a refusal of the update is about (`phone_numbers.2` is the phone numbers' field). */
const formFieldOf = (param: string | undefined) => workspaceFormFields.find((name) => param === name || param?.startsWith(`${name}.`));

/** The themes to choose from and show by name: the first page is as many as a person picks from in a list. */
const themesById = (themes: Theme[]) => new Map(themes.map((theme) => [theme.id, theme]));
const firstThemes = async (service: OrganizationWorkspaces) => (await service.themes({ limit: 100 })).data;

/**
 * Workspaces and themes: every member reads them; owners and admins change a workspace (the operation's own
 * refusals on their fields) and apply a theme after a preview of its values. Each is a NATS call to the leads
 * service for the signed-in person (the operations of the API and of MCP's `workspace` toolset), changes
 * audited with the person as actor.
 */
export function workspaceRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const serviceFor = (request: FastifyRequest) => workspacesFor(ctx, signedInOf(request), request.id);

  app.get('/workspaces', { config: { access: 'signed-in', operation: leadsRpc.listWorkspaces } }, async (request, reply) => {
    const { cursor } = checkedQuery(pageQuerySchema, request.query);
    const service = await serviceFor(request);
    const [workspaces, themes] = await Promise.all([
      service.list({ limit: workspacesPageSize, ...(cursor ? { cursor } : {}) }),
      firstThemes(service),
    ]);
    return sendPage(reply, 200, workspacesListPage(signedInOf(request), { workspaces, themes: themesById(themes), cursor }));
  });

  app.get('/workspaces/themes', { config: { access: 'signed-in', operation: leadsRpc.listThemes } }, async (request, reply) => {
    const { cursor } = checkedQuery(pageQuerySchema, request.query);
    const themes = await (await serviceFor(request)).themes({ limit: themesPageSize, ...(cursor ? { cursor } : {}) });
    return sendPage(reply, 200, themesListPage(signedInOf(request), { themes, cursor }));
  });

  app.get('/workspaces/themes/:id', { config: { access: 'signed-in', operation: leadsRpc.getTheme } }, async (request, reply) => {
    const { id } = paramsOf(themeParams, request.params);
    const service = await serviceFor(request);
    const [theme, workspaces] = await Promise.all([notFoundAs(service.theme(id), noTheme), service.list({ limit: 100 })]);
    return sendPage(reply, 200, themePage(signedInOf(request), { theme, workspaces: workspaces.data }));
  });

  async function showWorkspace(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form?: (workspace: Workspace) => WorkspaceFormView,
  ) {
    const { id } = paramsOf(workspaceParams, request.params);
    const signedIn = signedInOf(request);
    const service = await serviceFor(request);
    const [workspace, themes] = await Promise.all([notFoundAs(service.get(id), noWorkspace), firstThemes(service)]);
    const themeId = workspace.default_theme_id;
    // A theme past the first hundred is read by itself; one deleted meanwhile leaves the page standing.
    const theme = themeId ? (themesById(themes).get(themeId) ?? (await service.theme(themeId).catch(() => undefined))) : undefined;
    const values = form?.(workspace) ?? {
      values: { ...workspace, phone_numbers: workspace.phone_numbers.join('\n') },
    };
    return sendPage(
      reply,
      status,
      workspacePage(signedIn, { workspace, theme, themes, form: canManage(signedIn.role) ? values : undefined }),
    );
  }

  app.get('/workspaces/:id', { config: { access: 'signed-in', operation: leadsRpc.getWorkspace } }, (request, reply) =>
    showWorkspace(request, reply, 200),
  );

  app.post('/workspaces/:id', { config: { access: 'manager', operation: leadsRpc.updateWorkspace } }, async (request, reply) => {
    const { id } = paramsOf(workspaceParams, request.params);
    const typed = workspaceFormOf(formOf(request.body));
    try {
      await notFoundAs((await serviceFor(request)).update(id, workspaceUpdateOf(typed)), noWorkspace);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.code === 'not_found') throw error;
      const field = formFieldOf(error.param);
      const refusal = field ? { errors: { [field]: error.message } } : { error: error.message };
      return showWorkspace(request, reply, error.status, () => ({ values: typed, ...refusal }));
    }
    flash(request, reply, ctx.env, 'workspace-saved');
    return reply.redirect(workspacePath(id), 303);
  });

  /** The workspace and the theme a preview or an apply names, both this organization's, or a 404 page. */
  async function workspaceAndTheme(request: FastifyRequest, choice: unknown) {
    const { id } = paramsOf(workspaceParams, request.params);
    const { theme_id } = checkedQuery(themeChoice, choice);
    const service = await serviceFor(request);
    const [workspace, theme] = await Promise.all([notFoundAs(service.get(id), noWorkspace), notFoundAs(service.theme(theme_id), noTheme)]);
    return { service, workspace, theme };
  }

  // The preview is a page of its own, so applying needs no JavaScript; members get no such page.
  app.get('/workspaces/:id/apply-theme', { config: { access: 'manager' } }, async (request, reply) => {
    const { service, workspace, theme } = await workspaceAndTheme(request, request.query);
    const currentId = workspace.default_theme_id;
    const current = currentId ? await service.theme(currentId).catch(() => undefined) : undefined;
    return sendPage(reply, 200, applyThemePage(signedInOf(request), { workspace, theme, current }));
  });

  app.post('/workspaces/:id/apply-theme', { config: { access: 'manager', operation: leadsRpc.applyTheme } }, async (request, reply) => {
    const { service, workspace, theme } = await workspaceAndTheme(request, formOf(request.body));
    await notFoundAs(service.applyTheme(workspace.id, theme.id), noWorkspace);
    flash(request, reply, ctx.env, 'theme-applied');
    return reply.redirect(workspacePath(workspace.id), 303);
  });
}
