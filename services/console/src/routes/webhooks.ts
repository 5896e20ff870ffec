import { ApiError, type Bus } from '@voice/kit';
import { allEventTypes, webhookEventTypeSchema } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type OrganizationWebhooks, webhooksFor } from '../domain/webhooks.js';
import type { ConsoleEnv } from '../env.js';
import { flash } from '../http/flash.js';
import { type FormFields, formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf, queryOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { deleteConfirmPage, endpointPage, secretPage, webhooksPage, webhooksPath } from '../views/webhooks.js';

const endpointParams = z.object({ id: z.string().min(1).max(64) });
const deliveryParams = endpointParams.extend({ delivery_id: z.string().min(1).max(64) });
const logQuery = z.object({ cursor: z.string().max(512).optional() });
const endpointForm = z.object({
  url: z.string().trim().min(1, 'Enter the URL events are sent to.').max(2048, 'The URL is at most 2048 characters.'),
  description: z.string().trim().max(500, 'The description is at most 500 characters.').default(''),
});
const statusForm = z.object({ status: z.enum(['enabled', 'disabled'], 'Choose enable or disable.') });

/** Refusals the webhooks service gives for a change, shown above the page rather than as an error page. */
const formErrors = new Set(['invalid_request', 'plan_required', 'conflict']);

type EndpointInput = { url: string; description: string | null; event_types: Array<z.output<typeof webhookEventTypeSchema>> };

/** The form's URL, description and the event types whose checkboxes (`event_type.<type>`) are ticked. */
function endpointInput(fields: FormFields): { error: string } | { input: EndpointInput } {
  const form = endpointForm.safeParse(fields);
  if (!form.success) return { error: form.error.issues[0]?.message ?? 'Check the form.' };
  const ticked = Object.keys(fields).flatMap((name) => (name.startsWith('event_type.') ? [name.slice('event_type.'.length)] : []));
  const eventTypes = z
    .array(webhookEventTypeSchema)
    .min(1)
    .safeParse(ticked.includes(allEventTypes) ? [allEventTypes] : ticked);
  if (!eventTypes.success) return { error: 'Choose at least one event type, or all events.' };
  return { input: { url: form.data.url, description: form.data.description || null, event_types: eventTypes.data } };
}

/**
 * The organization's webhook endpoints and their delivery logs. Endpoints are the webhooks service's: every
 * action is a NATS call for the signed-in person. A signing secret is only ever in the body of the POST's
 * answer that created, rotated or revealed it.
 */
export function webhookRoutes(app: FastifyInstance, ctx: { bus: Bus; env: ConsoleEnv }): void {
  const serviceFor = (request: FastifyRequest) => webhooksFor(ctx, signedInOf(request), request.id);
  const listPage = async (request: FastifyRequest, reply: FastifyReply, webhooks: OrganizationWebhooks, status = 200, error?: string) =>
    sendPage(
      reply,
      status,
      webhooksPage(
        signedInOf(request),
        { organizationName: webhooks.organization.name, offered: webhooks.offered, endpoints: await webhooks.list() },
        { error },
      ),
    );
  const detailPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    webhooks: OrganizationWebhooks,
    id: string,
    options: { status?: number; error?: string; cursor?: string } = {},
  ) => {
    const endpoint = await webhooks.get(id);
    const log = await webhooks.deliveries(endpoint.id, options.cursor);
    const view = {
      offered: webhooks.offered,
      endpoint,
      deliveries: log.data,
      olderCursor: log.has_more ? log.next_cursor : null,
      olderPage: options.cursor !== undefined,
    };
    return sendPage(reply, options.status ?? 200, endpointPage(signedInOf(request), view, { error: options.error }));
  };
  /** Runs a change; a refusal the person can act on is shown on the page `onRefusal` renders. */
  const attempt = async <T>(work: () => Promise<T>, onRefusal: (status: number, message: string) => Promise<FastifyReply>) => {
    try {
      return { done: await work() };
    } catch (error) {
      if (!(error instanceof ApiError && formErrors.has(error.code))) throw error;
      return { refused: await onRefusal(error.status, error.message) };
    }
  };
  /** A change to one endpoint, answered by `done` (back to the endpoint's page) or its refusal shown there. */
  const changeEndpoint = async <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (webhooks: OrganizationWebhooks, id: string) => Promise<T>,
    done: (result: T, id: string) => FastifyReply | Promise<FastifyReply> = (_result, id) => reply.redirect(`${webhooksPath}/${id}`, 303),
  ) => {
    const { id } = paramsOf(endpointParams, request.params);
    const webhooks = await serviceFor(request);
    const result = await attempt(
      () => work(webhooks, id),
      (status, error) => detailPage(request, reply, webhooks, id, { status, error }),
    );
    return 'refused' in result ? result.refused : done(result.done, id);
  };

  app.get('/webhooks', { config: { access: 'signed-in' } }, async (request, reply) => listPage(request, reply, await serviceFor(request)));

  app.post('/webhooks', { config: { access: 'manager' } }, async (request, reply) => {
    const webhooks = await serviceFor(request);
    const form = endpointInput(formOf(request.body));
    if ('error' in form) return listPage(request, reply, webhooks, 400, form.error);
    const { description, ...rest } = form.input;
    const result = await attempt(
      () => webhooks.create({ ...rest, ...(description ? { description } : {}) }),
      (status, message) => listPage(request, reply, webhooks, status, message),
    );
    if ('refused' in result) return result.refused;
    return sendPage(reply, 201, secretPage(signedInOf(request), { heading: 'Endpoint added', endpoint: result.done }));
  });

  app.get('/webhooks/:id', { config: { access: 'signed-in' } }, async (request, reply) => {
    const { id } = paramsOf(endpointParams, request.params);
    const { cursor } = queryOf(logQuery, request.query);
    return detailPage(request, reply, await serviceFor(request), id, cursor ? { cursor } : {});
  });

  app.post('/webhooks/:id', { config: { access: 'manager' } }, async (request, reply) => {
    const form = endpointInput(formOf(request.body));
    return changeEndpoint(request, reply, async (webhooks, id) => {
      if ('error' in form) throw new ApiError('invalid_request', form.error);
      return webhooks.update({ id, ...form.input });
    });
  });

  app.post('/webhooks/:id/status', { config: { access: 'manager' } }, async (request, reply) => {
    const form = statusForm.safeParse(formOf(request.body));
    if (!form.success) throw new ApiError('invalid_request', 'Choose enable or disable.', { param: 'status' });
    return changeEndpoint(request, reply, (webhooks, id) => webhooks.update({ id, status: form.data.status }));
  });

  app.post('/webhooks/:id/test', { config: { access: 'manager' } }, (request, reply) =>
    changeEndpoint(request, reply, (webhooks, id) => webhooks.sendTest(id)),
  );

  app.post('/webhooks/:id/deliveries/:delivery_id/replay', { config: { access: 'manager' } }, (request, reply) => {
    const { delivery_id } = paramsOf(deliveryParams, request.params);
    return changeEndpoint(request, reply, (webhooks, id) => webhooks.replay(id, delivery_id));
  });

  app.post('/webhooks/:id/rotate-secret', { config: { access: 'manager' } }, (request, reply) =>
    changeEndpoint(
      request,
      reply,
      (webhooks, id) => webhooks.rotateSecret(id),
      (endpoint) =>
        sendPage(
          reply,
          201,
          secretPage(signedInOf(request), {
            heading: 'Signing secret rotated',
            endpoint,
            note: 'The previous secret keeps signing alongside this one for a grace period.',
          }),
        ),
    ),
  );

  // Owners and admins only (`manager`; a member's identity is `read` and the service refuses it too).
  app.post('/webhooks/:id/reveal-secret', { config: { access: 'manager' } }, (request, reply) =>
    changeEndpoint(
      request,
      reply,
      (webhooks, id) => webhooks.revealSecret(id),
      (endpoint) => sendPage(reply, 200, secretPage(signedInOf(request), { heading: 'Signing secret', endpoint })),
    ),
  );

  // The confirmation is a page of its own, so deleting needs no JavaScript; members get no such page.
  app.get('/webhooks/:id/delete', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(endpointParams, request.params);
    const signedIn = signedInOf(request);
    return sendPage(reply, 200, deleteConfirmPage(signedIn, await (await serviceFor(request)).get(id)));
  });

  app.post('/webhooks/:id/delete', { config: { access: 'manager' } }, (request, reply) =>
    changeEndpoint(
      request,
      reply,
      (webhooks, id) => webhooks.remove(id),
      () => {
        flash(request, reply, ctx.env, 'endpoint-deleted');
        return reply.redirect(webhooksPath, 303);
      },
    ),
  );
}
