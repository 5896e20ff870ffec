import { ApiError, type Bus } from '@voice/kit';
import type { CallListItem } from '@voice/proto';
import { telephonyRpc } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callFiltersOf, callQueryOf, callsFor, callsPageSize, type QueueForm, queueFormSchema } from '../domain/calls.js';
import { newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import { csvOfPages } from '../http/csv.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { contentSecurityPolicy, sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import {
  callPage,
  callPath,
  callsListPage,
  cancelableStatuses,
  cancelCallConfirmPage,
  queueCallPage,
  recordingOrigin,
} from '../views/calls.js';
import type { FieldErrors } from '../views/components.js';

const callParams = z.object({ id: z.string().regex(/^call_[0-9A-Za-z]{8,40}$/) });

const csvColumns = [
  'created_at',
  'id',
  'direction',
  'from',
  'to',
  'lead_id',
  'workspace_id',
  'status',
  'outcome',
  'duration_seconds',
  'cost',
  'currency',
  'end_reason',
  'source',
  'started_at',
  'ended_at',
] as const;

function csvCells(call: CallListItem): (string | number | null)[] {
  const cost = call.cost ? (call.cost.amount / 100).toFixed(2) : null;
  const cells: Record<(typeof csvColumns)[number], string | number | null> = {
    ...call,
    cost,
    currency: call.cost?.currency ?? null,
  };
  return csvColumns.map((column) => cells[column]);
}

/** One key per rendered queue form: a second submit of the same form finds the first call (telephony's idempotency). */

/** The refusals a person can act on, in words, by the field the operation names (`param`). */
function refusalText(error: ApiError): string {
  if (error.code === 'invalid_request' && error.param === 'to')
    return 'Enter the number in international form: + and the country code, then the number, e.g. +14155550123.';
  if (error.code === 'invalid_request' && error.param === 'lead_id') return 'A lead id looks like lead_ followed by letters and digits.';
  if (error.code === 'invalid_request' && error.param === 'workspace_id')
    return 'A workspace id looks like ws_ followed by letters and digits.';
  if (error.code === 'not_found' && error.param === 'lead_id') return 'This organization has no lead with this id.';
  if (error.code === 'not_found' && error.param === 'workspace_id') return 'This organization has no workspace with this id.';
  if (error.code === 'dnc_blocked') return `${error.message} Remove it from the do-not-call list first if the person asked to be called.`;
  return error.message;
}
const formFields = new Set(['to', 'lead_id', 'workspace_id']);

/**
 * The calls list, a call's page, queueing and canceling. Calls are telephony's: every page and action is a
 * NATS call for the signed-in person (read for members, read-write for owners and admins), the same
 * operations the API and MCP use, so they fire the same events and webhooks; changes are audited with the
 * person as actor through the gateway.
 */
export function callRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const serviceFor = (request: FastifyRequest) => callsFor(ctx, signedInOf(request), request.id);

  app.get('/calls', { config: { access: 'signed-in', operation: telephonyRpc.listCalls } }, async (request, reply) => {
    const filters = callFiltersOf(request.query);
    const signedIn = signedInOf(request);
    const calls = await (await serviceFor(request)).list(callQueryOf(filters, signedIn.user.timeZone, callsPageSize));
    return sendPage(reply, 200, callsListPage(signedIn, { filters, calls }));
  });

  app.get('/calls/export.csv', { config: { access: 'signed-in', operation: telephonyRpc.listCalls } }, async (request, reply) => {
    const { cursor: _ignored, ...filters } = callFiltersOf(request.query);
    const service = await serviceFor(request);
    const timeZone = signedInOf(request).user.timeZone;
    const text = await csvOfPages(
      csvColumns,
      (cursor, limit) => service.list(callQueryOf({ ...filters, cursor }, timeZone, limit)),
      csvCells,
    );
    return reply
      .status(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="calls-${service.organization.id}.csv"`)
      .send(text);
  });

  const queueForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    values: Partial<QueueForm> = {},
    refusal: { errors?: FieldErrors; error?: string } = {},
  ) =>
    sendPage(
      reply,
      status,
      queueCallPage(signedInOf(request), {
        values: { to: values.to ?? '', lead_id: values.lead_id ?? '', workspace_id: values.workspace_id ?? '' },
        formKey: newFormKey(),
        errors: refusal.errors ?? {},
        error: refusal.error,
      }),
    );

  app.get('/calls/new', { config: { access: 'manager' } }, async (request, reply) => {
    return queueForm(request, reply, 200);
  });

  app.post('/calls', { config: { access: 'manager', operation: telephonyRpc.queueCall } }, async (request, reply) => {
    const parsed = queueFormSchema.safeParse(formOf(request.body));
    if (!parsed.success) return queueForm(request, reply, 400, {}, { error: parsed.error.issues[0]?.message ?? 'Check the form.' });
    const form = parsed.data;
    const service = await serviceFor(request);
    const input = {
      to: form.to,
      ...(form.lead_id ? { lead_id: form.lead_id } : {}),
      ...(form.workspace_id ? { workspace_id: form.workspace_id } : {}),
    };
    let call: Awaited<ReturnType<typeof service.queue>>;
    try {
      // A double submit's second request waits for the first's answer: the same call.
      call = await service.queue(input, form.form_key);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      const onField = error.param !== undefined && formFields.has(error.param);
      return queueForm(
        request,
        reply,
        error.status,
        form,
        onField ? { errors: { [error.param as string]: refusalText(error) } } : { error: refusalText(error) },
      );
    }
    flash(request, reply, ctx.env, 'call-queued');
    return reply.redirect(callPath(call.id), 303);
  });

  app.get('/calls/:id', { config: { access: 'signed-in', operation: telephonyRpc.getCall } }, async (request, reply) => {
    const { id } = paramsOf(callParams, request.params);
    const service = await serviceFor(request);
    const [call, events] = await Promise.all([
      service.get(id),
      // The page stands without the webhooks log: its section says the service did not answer.
      service.events(id).catch((error: unknown) => {
        request.log.warn({ err: error, call_id: id }, 'webhook events of the call not read');
        return undefined;
      }),
    ]);
    const origin = recordingOrigin(call);
    if (origin) void reply.header('content-security-policy', contentSecurityPolicy(undefined, origin));
    return sendPage(reply, 200, callPage(signedInOf(request), { call, events }));
  });

  // The confirmation is a page of its own, so canceling needs no JavaScript; members get no such page.
  app.get('/calls/:id/cancel', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(callParams, request.params);
    const call = await (await serviceFor(request)).get(id);
    if (!cancelableStatuses.includes(call.status)) {
      throw new ApiError('conflict', `This call is ${call.status.replaceAll('_', ' ')}: only queued or ringing calls can be canceled.`);
    }
    return sendPage(reply, 200, cancelCallConfirmPage(signedInOf(request), call));
  });

  app.post('/calls/:id/cancel', { config: { access: 'manager', operation: telephonyRpc.cancelCall } }, async (request, reply) => {
    const { id } = paramsOf(callParams, request.params);
    // Refusals (409 for a call answered or ended, 404 for another organization's) are error pages in words.
    await (await serviceFor(request)).cancel(id);
    flash(request, reply, ctx.env, 'call-canceled');
    return reply.redirect(callPath(id), 303);
  });
}
