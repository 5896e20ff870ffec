import { ApiError, type Bus } from '@voice/kit';
import { idSchema, leadsRpc } from '@voice/proto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { billingFor, deliverableStatuses, projectFiltersOf, projectFormOf, projectInputOf } from '../domain/billing.js';
import type { ConsoleContext } from '../domain/context.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { formRefusal } from '../views/billing.js';
import {
  deliverProjectConfirmPage,
  projectFormPage,
  projectFormValues,
  projectPage,
  projectPath,
  projectsListPage,
} from '../views/projects.js';

const projectParams = z.object({ id: idSchema('project') });
/** The project form's fields the leads service may name in a refusal (`param`), besides a deliverable's. */
const projectFields = ['name', 'status', 'due_date', 'notes', 'deliverables'] as const;

/**
 * Projects: the list, a project's page, updating it, and delivering it after a confirmation page. Projects
 * are the leads service's: every page and action is a NATS call for the signed-in person, the operations the
 * API and the MCP `billing` tools use (`project.delivered` fires as it does for them); changes are audited
 * with the person as actor.
 */
export function projectRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const billing = (request: FastifyRequest) => billingFor(ctx, signedInOf(request), request.id);
  /** A project that may still change, or a 409 page: a delivered project is final (the leads service's rule). */
  const openProject = async (request: FastifyRequest, id: string) => {
    const project = await (await billing(request)).getProject(id);
    if (!deliverableStatuses.includes(project.status))
      throw new ApiError('conflict', 'This project was delivered; it can no longer change.');
    return project;
  };

  app.get('/projects', { config: { access: 'signed-in', operation: leadsRpc.listProjects } }, async (request, reply) => {
    const filters = projectFiltersOf(request.query);
    const projects = await (await billing(request)).listProjects(filters);
    return sendPage(reply, 200, projectsListPage(signedInOf(request), { filters, projects }));
  });

  app.get('/projects/:id', { config: { access: 'signed-in', operation: leadsRpc.getProject } }, async (request, reply) => {
    const { id } = paramsOf(projectParams, request.params);
    const service = await billing(request);
    const project = await service.getProject(id);
    return sendPage(reply, 200, projectPage(signedInOf(request), { project, ...(await service.around(project)) }));
  });

  app.get('/projects/:id/edit', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(projectParams, request.params);
    const project = await openProject(request, id);
    return sendPage(reply, 200, projectFormPage(signedInOf(request), { project, values: projectFormValues(project), errors: {} }));
  });

  app.post('/projects/:id', { config: { access: 'manager', operation: leadsRpc.updateProject } }, async (request, reply) => {
    const { id } = paramsOf(projectParams, request.params);
    const { values, more } = projectFormOf(formOf(request.body));
    const form = async (status: number, refusal: { errors?: Record<string, string | undefined>; error?: string | undefined } = {}) =>
      sendPage(
        reply,
        status,
        projectFormPage(signedInOf(request), {
          project: await openProject(request, id),
          values,
          errors: refusal.errors ?? {},
          error: refusal.error,
        }),
      );
    if (more) return form(200);
    const { input, rowOf } = projectInputOf(values);
    try {
      await (await billing(request)).updateProject(id, input);
    } catch (error) {
      const refusal = formRefusal(error, { list: 'deliverables', rowOf, fields: projectFields, currency: 'USD' });
      if (!refusal) throw error;
      return form(refusal.status, refusal);
    }
    flash(request, reply, ctx.env, 'project-saved');
    return reply.redirect(projectPath(id), 303);
  });

  // The confirmation is a page of its own; the person's click on it is the approval an agent would ask for.
  app.get('/projects/:id/deliver', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(projectParams, request.params);
    const project = await openProject(request, id);
    const service = await billing(request);
    const [lead, receivers] = await Promise.all([service.lead(project.lead_id), service.receivers('project.delivered')]);
    return sendPage(reply, 200, deliverProjectConfirmPage(signedInOf(request), { project, lead, receivers }));
  });

  app.post('/projects/:id/deliver', { config: { access: 'manager', operation: leadsRpc.deliverProject } }, async (request, reply) => {
    const { id } = paramsOf(projectParams, request.params);
    // Refusals (409 once delivered, 404 for another organization's) are error pages in the service's words.
    await (await billing(request)).deliverProject(id);
    flash(request, reply, ctx.env, 'project-delivered');
    return reply.redirect(projectPath(id), 303);
  });
}
