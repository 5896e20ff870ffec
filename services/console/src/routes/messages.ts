import { ApiError, type Bus } from '@voice/kit';
import { smsMaxBodyLength, telephonyRpc } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { isFormKey, newFormKey } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import {
  checkedQuery,
  conversationPageSize,
  isPhoneNumber,
  messageFilterSchema,
  type OrganizationTelephony,
  phoneInput,
  smsQueryOf,
  telephonyFor,
} from '../domain/messages.js';
import { canManage } from '../domain/roles.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { type FieldErrors, formatFor } from '../views/components.js';
import { conversationPage, conversationPath, messagePage, messagesPage, newMessagePage, type SendForm } from '../views/messages.js';

const conversationQuery = z.object({
  phone: z.string().optional(),
  cursor: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.string().max(512, 'The cursor is not one this conversation gave; start again without it.').optional(),
  ),
});
/** A message's id in the address; anything no id can match is a 404 page. */
const messageParams = z.object({ id: z.string().regex(/^sms_[0-9A-Za-z]{8,40}$/) });
const newMessageQuery = z.object({ to: z.string().max(64, 'The to number is at most 64 characters.').optional() });

/** A number from the address (`?phone=`): absent, or not a number, is a 400 page naming the parameter. */
function phoneOfQuery(value: string | undefined): string {
  if (value === undefined || value.trim() === '') {
    throw new ApiError(
      'invalid_request',
      'The address names no phone number: open a conversation from the messages list, or add ?phone=%2B14155550123.',
      { param: 'phone' },
    );
  }
  const phone = phoneInput(value.slice(0, 64));
  if (!isPhoneNumber(phone)) {
    throw new ApiError('invalid_request', 'The phone parameter must be a number in international form, e.g. +14155550123.', {
      param: 'phone',
    });
  }
  return phone;
}

/**
 * A refused send as the person reads it, on the form: the operation names the field at fault (`param`),
 * which gets the words; refusals of no field (the plan, a quota, the form used twice) go above the form.
 * Undefined for errors that are no refusal (the service down): those are an error page.
 */
function sendRefusal(error: unknown, sent: { to: string; body: string }, format: ReturnType<typeof formatFor>) {
  if (!(error instanceof ApiError)) return undefined;
  const errors: FieldErrors = {};
  if (error.code === 'dnc_blocked') {
    errors.to = `${format.phone(sent.to)} is on the do-not-call list for messages, so it cannot be sent one. It stays blocked until an owner or admin removes it from the list.`;
  } else if (error.code === 'invalid_request' && error.param === 'to') {
    errors.to = 'Enter the number in international form: + and the country code, e.g. +14155550123.';
  } else if (error.code === 'invalid_request' && error.param === 'body') {
    const length = sent.body.trim().length;
    errors.body =
      length === 0
        ? 'Write the message before sending it.'
        : length > smsMaxBodyLength
          ? `A message is at most ${smsMaxBodyLength.toLocaleString('en')} characters; this one has ${length.toLocaleString('en')}. Shorten it or send it in two.`
          : error.message;
  } else if (error.code === 'idempotency_conflict') {
    return {
      status: error.status,
      error:
        'This form already sent a different message. Check the conversation; to send this text as well, send it again from this new form.',
    };
  } else if (['plan_required', 'quota_exceeded', 'rate_limited', 'forbidden_scope', 'invalid_request', 'not_found'].includes(error.code)) {
    return { status: error.status, error: error.message };
  } else {
    return undefined;
  }
  return { status: error.status, errors };
}

/**
 * Messages: the organization's SMS list, a conversation per number, and sending (owners and admins). Every
 * read and send is a NATS call to the telephony service for the signed-in person; a send is the API's own
 * operation, so it fires the same events and webhooks, and is audited with the person as actor.
 */
export function messageRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus; redis: Redis }): void {
  const telephony = (request: FastifyRequest) => telephonyFor(ctx, signedInOf(request), request.id);

  async function showConversation(
    request: FastifyRequest,
    reply: FastifyReply,
    tel: OrganizationTelephony,
    phone: string,
    options: { cursor?: string | undefined; status?: number; form?: Omit<SendForm, 'formKey'> } = {},
  ) {
    const signedIn = signedInOf(request);
    const [messages, dnc] = await Promise.all([
      tel.listSms({ phone, limit: conversationPageSize, ...(options.cursor ? { cursor: options.cursor } : {}) }),
      tel.checkDnc(phone),
    ]);
    const form = canManage(signedIn.role) ? { ...options.form, formKey: newFormKey() } : undefined;
    return sendPage(
      reply,
      options.status ?? 200,
      conversationPage(signedIn, { phone, page: messages, paged: options.cursor !== undefined, dnc }, form),
    );
  }

  app.get('/messages', { config: { access: 'signed-in', operation: telephonyRpc.listSms } }, async (request, reply) => {
    const filters = checkedQuery(messageFilterSchema, request.query);
    const signedIn = signedInOf(request);
    const tel = await telephony(request);
    const messages = await tel.listSms(smsQueryOf(filters, signedIn.user.timeZone));
    return sendPage(reply, 200, messagesPage(signedIn, { filters, page: messages }));
  });

  app.get('/messages/conversation', { config: { access: 'signed-in', operation: telephonyRpc.listSms } }, async (request, reply) => {
    const query = checkedQuery(conversationQuery, request.query);
    const phone = phoneOfQuery(query.phone);
    return showConversation(request, reply, await telephony(request), phone, { cursor: query.cursor });
  });

  // The form is a page of its own (`?to=` fills the number in); members get no such page.
  app.get('/messages/:id', { config: { access: 'signed-in', operation: telephonyRpc.getSms } }, async (request, reply) => {
    const { id } = paramsOf(messageParams, request.params);
    const tel = await telephony(request);
    const [sms, events] = await Promise.all([
      tel.getSms(id),
      // The page stands without the webhooks log: its section says the service did not answer.
      tel.smsEvents(id).catch((error: unknown) => {
        request.log.warn({ err: error, sms_id: id }, 'webhook events of the message not read');
        return undefined;
      }),
    ]);
    return sendPage(reply, 200, messagePage(signedInOf(request), { sms, events }));
  });

  app.get('/messages/new', { config: { access: 'manager' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const { to } = checkedQuery(newMessageQuery, request.query);
    return sendPage(reply, 200, newMessagePage(signedIn, { formKey: newFormKey(), to }));
  });

  app.post('/messages', { config: { access: 'manager', operation: telephonyRpc.sendSms } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const fields = formOf(request.body);
    if (!isFormKey(fields.form_key)) {
      throw new ApiError('invalid_request', 'This form is incomplete or out of date: reload the page and write the message again.', {
        param: 'form_key',
      });
    }
    const sent = { to: phoneInput(fields.to ?? ''), body: fields.body ?? '' };
    const tel = await telephony(request);
    try {
      const sms = await tel.sendSms({ ...sent, formKey: fields.form_key });
      flash(request, reply, ctx.env, 'sms-sent');
      return reply.redirect(conversationPath(sms.to), 303);
    } catch (error) {
      const refusal = sendRefusal(error, sent, formatFor(signedIn));
      if (!refusal) throw error;
      const typed = { to: fields.to, body: sent.body, errors: refusal.errors ?? {}, error: refusal.error };
      // Refused from a conversation's send box: the conversation again, the text kept; else the send page.
      if (fields.context === 'conversation' && isPhoneNumber(sent.to)) {
        return showConversation(request, reply, tel, sent.to, { status: refusal.status, form: typed });
      }
      return sendPage(reply, refusal.status, newMessagePage(signedIn, { ...typed, formKey: newFormKey() }));
    }
  });
}
