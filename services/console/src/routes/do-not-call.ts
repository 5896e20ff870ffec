import { ApiError, type Bus } from '@voice/kit';
import { type DncChannel, type DncEntry, idSchema, telephonyRpc } from '@voice/proto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { isFormKey, newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import { checkedQuery, dncFilterSchema, dncPageSize, isPhoneNumber, phoneInput, telephonyFor } from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import type { FieldErrors } from '../views/components.js';
import { type AdderNames, type AddForm, dncCheckPage, dncListPage, dncPath, dncRemoveConfirmPage } from '../views/do-not-call.js';

const entryParams = z.object({ id: idSchema('dnc') });
const checkQuery = z.object({ phone: z.string().optional() });

/** The fields of the add form the telephony service names in a refusal (`param`). */
const addFields = new Set(['phone', 'channel', 'reason']);

/** The names of the people who added entries in the console (their user id is the entry's `created_by`). */
async function adderNames(prisma: PrismaClient, entries: DncEntry[]): Promise<AdderNames> {
  const ids = [...new Set(entries.flatMap((entry) => (entry.created_by?.startsWith('usr_') ? [entry.created_by] : [])))];
  if (ids.length === 0) return new Map();
  const users = await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(users.map((user) => [user.id, user.name]));
}

/** Another organization's entry, or one removed meanwhile, is not on this organization's list: a 404 page. */
async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') {
      throw new ApiError('not_found', 'This entry is not on your organization’s do-not-call list (it may have been removed already).');
    }
    throw error;
  }
}

/**
 * The do-not-call list: every member reads it, searches it and checks a number; owners and admins add a
 * number and remove an entry after a confirmation page. Each is a NATS call to the telephony service for the
 * signed-in person (the API's own operations: the same events and webhooks), changes audited as the person.
 */
export function doNotCallRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus; redis: Redis }): void {
  const telephony = (request: FastifyRequest) => telephonyFor(ctx, signedInOf(request), request.id);

  async function listPage(request: FastifyRequest, query: unknown, form?: Omit<AddForm, 'formKey'>) {
    const signedIn = signedInOf(request);
    const filters = checkedQuery(dncFilterSchema, query);
    const tel = await telephony(request);
    const entries = await tel.listDnc({ limit: dncPageSize, ...filters });
    const names = await adderNames(ctx.prisma, entries.data);
    const addForm = canManage(signedIn.role) ? { ...form, formKey: newFormKey() } : undefined;
    return dncListPage(signedIn, { filters, page: entries, names }, addForm);
  }

  app.get('/do-not-call', { config: { access: 'signed-in', operation: telephonyRpc.listDnc } }, async (request, reply) =>
    sendPage(reply, 200, await listPage(request, request.query)),
  );

  app.post('/do-not-call', { config: { access: 'manager', operation: telephonyRpc.addDnc } }, async (request, reply) => {
    const fields = formOf(request.body);
    if (!isFormKey(fields.form_key)) {
      throw new ApiError('invalid_request', 'This form is incomplete or out of date: reload the page and add the number again.', {
        param: 'form_key',
      });
    }
    const reason = fields.reason?.trim() ?? '';
    const entry = {
      phone: phoneInput(fields.phone ?? ''),
      channel: (fields.channel || 'all') as DncChannel,
      ...(reason ? { reason } : {}),
    };
    try {
      await (await telephony(request)).addDnc({ ...entry, formKey: fields.form_key });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'invalid_request' && addFields.has(error.param ?? ''))) throw error;
      const param = error.param as 'phone' | 'channel' | 'reason';
      const words: Record<typeof param, string> = {
        phone: 'Enter the number in international form: + and the country code, e.g. +14155550123.',
        channel: 'Choose what to block: calls and SMS, calls only or SMS only.',
        reason: 'The reason is at most 500 characters.',
      };
      const errors: FieldErrors = { [param]: words[param] };
      const typed = { phone: fields.phone, channel: fields.channel, reason: fields.reason, errors };
      return sendPage(reply, 400, await listPage(request, {}, typed));
    }
    flash(request, reply, ctx.env, 'dnc-added');
    return reply.redirect(dncPath, 303);
  });

  app.get('/do-not-call/check', { config: { access: 'signed-in', operation: telephonyRpc.checkDnc } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const typed = checkedQuery(checkQuery, request.query).phone?.slice(0, 64);
    if (typed === undefined || typed.trim() === '') return sendPage(reply, 200, dncCheckPage(signedIn, { names: new Map() }));
    const phone = phoneInput(typed);
    if (!isPhoneNumber(phone)) {
      const error = 'Enter the number in international form: + and the country code, e.g. +14155550123.';
      return sendPage(reply, 400, dncCheckPage(signedIn, { typed, error, names: new Map() }));
    }
    const check = await (await telephony(request)).checkDnc(phone);
    const names = await adderNames(ctx.prisma, check.entries);
    const form = canManage(signedIn.role) ? { formKey: newFormKey(), phone } : undefined;
    return sendPage(reply, 200, dncCheckPage(signedIn, { check, names }, form));
  });

  // The confirmation is a page of its own, so removing needs no JavaScript; members get no such page.
  app.get('/do-not-call/:id/remove', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(entryParams, request.params);
    const signedIn = signedInOf(request);
    const entry = await orNotFound((await telephony(request)).getDnc(id));
    return sendPage(reply, 200, dncRemoveConfirmPage(signedIn, entry));
  });

  app.post('/do-not-call/:id/remove', { config: { access: 'manager', operation: telephonyRpc.removeDnc } }, async (request, reply) => {
    const { id } = paramsOf(entryParams, request.params);
    await orNotFound((await telephony(request)).removeDnc(id));
    flash(request, reply, ctx.env, 'dnc-removed');
    return reply.redirect(dncPath, 303);
  });
}
