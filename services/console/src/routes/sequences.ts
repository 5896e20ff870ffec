import { ApiError, type Bus } from '@voice/kit';
import { idSchema, leadsRpc } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import { pageQuerySchema } from '../domain/list-query.js';
import { checkedQuery } from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import {
  enrollFormSchema,
  enrollmentFilterSchema,
  enrollmentsPageSize,
  sequencePath,
  sequencesFor,
  sequencesPageSize,
} from '../domain/sequences.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { notFoundAs, paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { type EnrollForm, sequencePage, sequencesListPage, unenrollConfirmPage } from '../views/sequences.js';

const sequenceParams = z.object({ id: idSchema('sequence') });
const enrollmentParams = z.object({ id: idSchema('sequence'), lead_id: idSchema('lead') });

/** The enroll operation's refusals a person can act on, in words, on the lead field. */
function enrollRefusal(error: ApiError): string | undefined {
  if (error.param !== 'lead_ids' && !error.param?.startsWith('lead_ids.')) return undefined;
  if (error.code === 'not_found') return 'This organization has no lead with this id.';
  if (error.code === 'invalid_request') return 'A lead id looks like lead_ followed by letters and digits.';
  return error.message;
}

const noSequence = 'Your organization has no sequence with this id.';
const noActiveEnrollment = 'This lead has no active enrollment in this sequence (it may have been stopped already).';

/**
 * The sequences: every member reads the list and a sequence's steps and enrollments; owners and admins enroll
 * a lead and unenroll one after a confirmation page. Each is a NATS call to the leads service for the
 * signed-in person (the operations of the API and of MCP's `sequences` toolset: the same events and webhooks),
 * changes audited with the person as actor.
 */
export function sequenceRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus; redis: Redis }): void {
  const serviceFor = (request: FastifyRequest) => sequencesFor(ctx, signedInOf(request), request.id);

  app.get('/sequences', { config: { access: 'signed-in', operation: leadsRpc.listSequences } }, async (request, reply) => {
    const { cursor } = checkedQuery(pageQuerySchema, request.query);
    const sequences = await (await serviceFor(request)).list({ limit: sequencesPageSize, ...(cursor ? { cursor } : {}) });
    return sendPage(reply, 200, sequencesListPage(signedInOf(request), { sequences, cursor }));
  });

  async function showSequence(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    query: unknown,
    form?: Omit<EnrollForm, 'formKey'>,
  ) {
    const { id } = paramsOf(sequenceParams, request.params);
    const signedIn = signedInOf(request);
    const filters = checkedQuery(enrollmentFilterSchema, query);
    const service = await serviceFor(request);
    const sequence = await notFoundAs(service.get(id), noSequence);
    const enrollments = await service.enrollments(id, { limit: enrollmentsPageSize, ...filters });
    const enroll = canManage(signedIn.role) ? { ...form, formKey: newFormKey() } : undefined;
    return sendPage(reply, status, sequencePage(signedIn, { sequence, filters, enrollments, form: enroll }));
  }

  app.get(
    '/sequences/:id',
    { config: { access: 'signed-in', operation: leadsRpc.getSequence, alsoRuns: [leadsRpc.listEnrollments] } },
    (request, reply) => showSequence(request, reply, 200, request.query),
  );

  app.post('/sequences/:id/enrollments', { config: { access: 'manager', operation: leadsRpc.enroll } }, async (request, reply) => {
    const { id } = paramsOf(sequenceParams, request.params);
    const parsed = enrollFormSchema.safeParse(formOf(request.body));
    if (!parsed.success) {
      throw new ApiError('invalid_request', parsed.error.issues[0]?.message ?? 'Check the form.', { param: 'form_key' });
    }
    const { lead_id, form_key } = parsed.data;
    try {
      // The lead's refusals go on its field; any other not_found is the sequence's (another organization's).
      await (await serviceFor(request)).enroll(id, lead_id, form_key);
    } catch (error) {
      const words = error instanceof ApiError ? enrollRefusal(error) : undefined;
      if (!words) throw error instanceof ApiError && error.code === 'not_found' ? new ApiError('not_found', noSequence) : error;
      return showSequence(request, reply, (error as ApiError).status, {}, { leadId: lead_id, errors: { lead_id: words } });
    }
    flash(request, reply, ctx.env, 'lead-enrolled');
    return reply.redirect(sequencePath(id), 303);
  });

  // The confirmation is a page of its own, so unenrolling needs no JavaScript; members get no such page.
  app.get('/sequences/:id/leads/:lead_id/unenroll', { config: { access: 'manager' } }, async (request, reply) => {
    const { id, lead_id } = paramsOf(enrollmentParams, request.params);
    const signedIn = signedInOf(request);
    const service = await serviceFor(request);
    const sequence = await notFoundAs(service.get(id), noSequence);
    const enrollment = await notFoundAs(service.activeEnrollment(id, lead_id), 'This lead is not enrolled in this sequence.');
    if (!enrollment)
      throw new ApiError('not_found', 'This lead has no active enrollment in this sequence (it may have been stopped already).');
    return sendPage(reply, 200, unenrollConfirmPage(signedIn, sequence, enrollment));
  });

  app.post(
    '/sequences/:id/leads/:lead_id/unenroll',
    { config: { access: 'manager', operation: leadsRpc.unenrollLead } },
    async (request, reply) => {
      const { id, lead_id } = paramsOf(enrollmentParams, request.params);
      // The lead's active enrollment stops; none (another organization's ids, or stopped already) is a 404 page.
      await notFoundAs((await serviceFor(request)).unenroll(id, lead_id), noActiveEnrollment);
      flash(request, reply, ctx.env, 'lead-unenrolled');
      return reply.redirect(sequencePath(id), 303);
    },
  );
}
