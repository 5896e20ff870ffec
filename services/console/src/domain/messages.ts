import { ApiError, type Bus, type Logger } from '@voice/kit';
import {
  type AddDncBody,
  type Identity,
  type ListDncQuery,
  type ListSmsQuery,
  smsDirections,
  smsStatuses,
  telephonyRpc,
  webhooksRpc,
} from '@voice/proto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ConsoleEnv } from '../env.js';
import { afterTheFirst, audited, oncePerForm } from './console-actions.js';
import { dayStart } from './days.js';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** How many messages a page of the list shows, and of a conversation; how many do-not-call entries. */
export const messagesPageSize = 25;
export const conversationPageSize = 20;
export const dncPageSize = 25;

const e164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * A phone number as a person types or pastes it (`+1 (415) 555-0123`, `+1.415.555.0123`) in the form the
 * platform takes (`+14155550123`): spaces, dots, dashes and brackets dropped. An address with an unencoded
 * `+` (`?phone=+1415…`) arrives with a space in its place, which is taken for the `+`. Whatever else it is is
 * left for the operation to judge (its refusal names the field).
 */
export function phoneInput(value: string): string {
  const compact = value.replace(/[\s().-]/g, '');
  return /^[0-9]+$/.test(compact) && /^ +[0-9]/.test(value) ? `+${compact}` : compact;
}

/** Whether a phone number, as `phoneInput` made it, is one the platform takes (E.164). */
export const isPhoneNumber = (value: string) => e164.test(value);

const blankIsAny = (value: unknown) => (value === '' ? undefined : value);
const day = (name: string) =>
  z.preprocess(blankIsAny, z.iso.date(`The ${name} date must be a day written YYYY-MM-DD, e.g. 2026-03-31.`).optional());

/**
 * The messages list's filters as its GET form (and the overview's links) send them; empty values mean any.
 * `from` and `to` are whole days in the person's time zone, both included.
 */
export const messageFilterSchema = z
  .object({
    direction: z.preprocess(blankIsAny, z.enum(smsDirections, 'The direction filter must be inbound or outbound.').optional()),
    status: z.preprocess(blankIsAny, z.enum(smsStatuses, `The status filter must be one of ${smsStatuses.join(', ')}.`).optional()),
    lead_id: z.preprocess(
      blankIsAny,
      z
        .string()
        .regex(/^lead_[0-9A-Za-z]{8,40}$/, 'The lead_id filter must be a lead id, lead_…')
        .optional(),
    ),
    from: day('from'),
    to: day('to'),
    cursor: z.preprocess(blankIsAny, z.string().max(512, 'The cursor is not one this list gave; start again without it.').optional()),
  })
  .refine((filters) => !(filters.from && filters.to && filters.from > filters.to), {
    message: 'The from date is after the to date: choose a range whose first day comes first.',
    path: ['from'],
  });
export type MessageFilters = z.output<typeof messageFilterSchema>;

/** The do-not-call list's search (digits of a number or words of a reason) and page; empty means everything. */
export const dncFilterSchema = z.object({
  search: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.string().trim().max(100, 'The search is at most 100 characters: a number or a few words of a reason.').optional(),
  ),
  cursor: z.preprocess(blankIsAny, z.string().max(512, 'The cursor is not one this list gave; start again without it.').optional()),
});
export type DncFilters = z.output<typeof dncFilterSchema>;

/** A query's values checked by `schema`, or a 400 page with the first problem's words, naming its field. */
export function checkedQuery<T extends z.ZodType>(schema: T, query: unknown): z.output<T> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.join('.') || undefined;
  throw new ApiError('invalid_request', issue?.message ?? 'Check the address.', param ? { param } : {});
}

/** The telephony list's query for the filters: the days are the person's, `to` included (until the next midnight). */
export function smsQueryOf(filters: MessageFilters, timeZone: string): ListSmsQuery {
  const { from, to, cursor, ...rest } = filters;
  return {
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ...(from ? { created_after: dayStart(from, timeZone) } : {}),
    ...(to ? { created_before: dayStart(to, timeZone, 1) } : {}),
    ...(cursor ? { cursor } : {}),
    limit: messagesPageSize,
  };
}

/** The filters as a query string, with a cursor when given (the pager's links). */
export function messageQueryString(filters: MessageFilters, cursor?: string | null): string {
  const { cursor: _current, ...rest } = filters;
  const entries = Object.entries({ ...rest, ...(cursor ? { cursor } : {}) }).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return new URLSearchParams(entries).toString();
}

export interface TelephonyConsoleContext {
  bus: Bus;
  redis: Redis;
  logger: Logger;
  env: ConsoleEnv;
}

/**
 * The telephony service's messages and do-not-call operations for one person and request, as the person
 * (the identity the API keys pages use: `read-write` for owners and admins, `read` for members, whom the
 * service refuses any change whatever the page shows). Changes are audited with the person as actor.
 */
export async function telephonyFor(ctx: TelephonyConsoleContext, signedIn: SignedIn, requestId: string) {
  const { identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    identity,
    listSms: (query: ListSmsQuery) => ctx.bus.call(telephonyRpc.listSms, identity, query),
    getSms: (id: string) => ctx.bus.call(telephonyRpc.getSms, identity, { id }),
    /** The events the message produced that went to webhook endpoints, with their deliveries. */
    smsEvents: (id: string) => ctx.bus.call(webhooksRpc.listRecordEvents, identity, { record_id: id }),
    /**
     * Sends as the API does, once per form: the form's key, tied to the person, is the operation's
     * idempotency key, so a second submit of the form returns the first message instead of sending again.
     */
    sendSms: (input: { to: string; body: string; formKey: string }) =>
      audited(ctx, identity, { path: '/dashboard/messages', status: 201 }, () =>
        sendOnce(ctx, identity, input.formKey, { to: input.to, body: input.body }),
      ),
    listDnc: (query: ListDncQuery) => ctx.bus.call(telephonyRpc.listDnc, identity, query),
    getDnc: (id: string) => ctx.bus.call(telephonyRpc.getDnc, identity, { id }),
    checkDnc: (phone: string) => ctx.bus.call(telephonyRpc.checkDnc, identity, { phone }),
    /**
     * Adds a number as the person (`source` `manual`, their user id as `created_by`), once per form: a second
     * submit of the same form returns the first answer (the list keeps one entry per number and channel anyway).
     */
    addDnc: (input: AddDncBody & { formKey: string }) => {
      const { formKey, ...entry } = input;
      return audited(ctx, identity, { path: '/dashboard/do-not-call', status: 201 }, () =>
        oncePerForm(
          ctx,
          { orgId: identity.org_id, userId: signedIn.user.id, operation: 'console.dnc.add', formKey, fingerprint: entry },
          () => ctx.bus.call(telephonyRpc.addDnc, identity, { ...entry, source: 'manual' }),
        ),
      );
    },
    /**
     * Removes an entry. The operation is one an agent may only ask a person to approve (`approval: true`:
     * its MCP tool stores an approval and does nothing); this is a person, whose confirmation on the
     * console's page is that approval, so the console runs it directly with the person's identity.
     */
    removeDnc: (id: string) =>
      audited(ctx, identity, { path: `/dashboard/do-not-call/${id}/remove`, status: 200 }, () =>
        ctx.bus.call(telephonyRpc.removeDnc, identity, { id }),
      ),
  };
}
export type OrganizationTelephony = Awaited<ReturnType<typeof telephonyFor>>;

/** `svc.telephony.sms.send` with the form's key, tied to the person, as the operation's idempotency key. */
function sendOnce(ctx: { bus: Bus }, identity: Identity, formKey: string, message: { to: string; body: string }) {
  const input = { ...message, source: 'api' as const, idempotency_key: `console:${identity.user_id ?? identity.key_id}:${formKey}` };
  return afterTheFirst(() => ctx.bus.call(telephonyRpc.sendSms, identity, input));
}
