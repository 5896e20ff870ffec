import { ApiError, type Bus, type Logger } from '@voice/kit';
import { callDirections, callOutcomes, callStatuses, type ListCallsQuery, type RpcInput, telephonyRpc, webhooksRpc } from '@voice/proto';
import { z } from 'zod';
import { afterTheFirst, audited, isFormKey } from './console-actions.js';
import { dayStart } from './days.js';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** Rows of one page of the calls list. */
export const callsPageSize = 25;

/**
 * The calls list's filters as its GET form sends them, and the URL contract other pages link to (the
 * overview links each figure here with filters set): `direction`, `outcome`, `status`, `lead_id`, `number`,
 * `from` and `to` (days, YYYY-MM-DD, whole days in the person's time zone, both included) and `cursor`.
 * Empty values mean "any"; a malformed one is a 400 page naming the field.
 */
export const blankIsAny = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
export const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value);
const day = (what: string) =>
  z.preprocess(
    blankIsAny,
    z.iso
      .date(`Enter the ${what} day as a date, e.g. 2026-11-27.`)
      .refine((value) => Number(value.slice(0, 4)) >= 1970, `Enter the ${what} day from 1970 on.`)
      .optional(),
  );
/** A list page's cursor, as its Newer and Older links carry it. */
export const pageCursor = z.preprocess(
  blankIsAny,
  z.string().max(512, 'The page link is damaged; start again from the first page.').optional(),
);
/** The fields every list filtered by days has: the first and last day (both included) and the page. */
export const daysAndPage = { from: day('first'), to: day('last'), cursor: pageCursor };
/** Whether a list's day range reads forwards; with `firstDayFirstRefusal`, the filters' `.refine`. */
export const firstDayFirst = (filters: { from?: string | undefined; to?: string | undefined }) =>
  !filters.from || !filters.to || filters.from <= filters.to;
export const firstDayFirstRefusal = { message: 'The first day must not be after the last day.', path: ['from'] };
export const callFilterSchema = z
  .object({
    direction: z.preprocess(blankIsAny, z.enum(callDirections, 'Choose inbound or outbound.').optional()),
    outcome: z.preprocess(blankIsAny, z.enum(callOutcomes, 'Choose an outcome from the list.').optional()),
    status: z.preprocess(blankIsAny, z.enum(callStatuses, 'Choose a status from the list.').optional()),
    lead_id: z.preprocess(
      (value) => blankIsAny(trimmed(value)),
      z
        .string()
        .regex(/^lead_[0-9A-Za-z]{8,40}$/, 'A lead id looks like lead_ followed by 8 to 40 letters and digits.')
        .optional(),
    ),
    number: z.preprocess(
      (value) => blankIsAny(typeof value === 'string' ? value.replace(/[\s().-]/g, '') : value),
      z
        .string()
        .regex(/^\+?[0-9]{3,15}$/, 'Enter 3 to 15 digits of the number, e.g. 5550123.')
        .optional(),
    ),
    ...daysAndPage,
  })
  .refine(firstDayFirst, firstDayFirstRefusal);
export type CallFilters = z.output<typeof callFilterSchema>;

/** The filter names in the order the form shows them (and links write them). */
export const callFilterNames = ['direction', 'outcome', 'status', 'lead_id', 'number', 'from', 'to'] as const;

/** The list's query, or a 400 page naming the first field that is wrong. */
export function callFiltersOf(query: unknown): CallFilters {
  const parsed = callFilterSchema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.join('.') || 'query';
  throw new ApiError('invalid_request', `The ${param} filter is not valid: ${issue?.message ?? 'check it.'}`, { param });
}

/** The telephony list query for the filters: `from`..`to` are whole days in the person's time zone. */
export function callQueryOf(filters: CallFilters, timeZone: string, limit: number): ListCallsQuery {
  const { from, to, cursor, ...rest } = filters;
  return {
    ...(Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as Partial<ListCallsQuery>),
    ...(from ? { created_after: dayStart(from, timeZone) } : {}),
    ...(to ? { created_before: dayStart(to, timeZone, 1) } : {}),
    ...(cursor ? { cursor } : {}),
    limit,
  };
}

/** The filters as a query string, with a cursor when given: links to other pages of the list and the CSV. */
export function callQueryString(filters: CallFilters, cursor?: string): string {
  const entries = callFilterNames.flatMap((name) => {
    const value = filters[name];
    return value === undefined ? [] : [[name, value] as [string, string]];
  });
  if (cursor) entries.push(['cursor', cursor]);
  return new URLSearchParams(entries).toString();
}

/** The queue form's fields: the number as typed (spaces, dashes and brackets dropped), lead and workspace optional. */
export const queueFormSchema = z.object({
  to: z.preprocess((value) => (typeof value === 'string' ? value.replace(/[\s().-]/g, '') : value), z.string().max(32).default('')),
  lead_id: z.preprocess(trimmed, z.string().max(64).default('')),
  workspace_id: z.preprocess(trimmed, z.string().max(64).default('')),
  form_key: z.string().refine(isFormKey, 'The form is damaged; open it again.'),
});
export type QueueForm = z.output<typeof queueFormSchema>;

/**
 * The telephony, webhooks and gateway operations a calls page needs, for one person and request: the same
 * NATS operations the API and MCP use, with the person's identity (`read` for members, so telephony itself
 * refuses their changes).
 */
export async function callsFor(ctx: { bus: Bus; logger: Logger }, signedIn: SignedIn, requestId: string) {
  const { organization, identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    organization,
    list: (query: ListCallsQuery) => ctx.bus.call(telephonyRpc.listCalls, identity, query),
    get: (id: string) => ctx.bus.call(telephonyRpc.getCall, identity, { id }),
    /**
     * Queues the form's call, once per rendered form (its key, tied to the person, is the operation's
     * idempotency key), audited with the person as actor.
     */
    queue: (input: Omit<RpcInput<typeof telephonyRpc.queueCall>, 'idempotency_key' | 'source'>, formKey: string) =>
      audited(ctx, identity, { path: '/dashboard/calls', status: 201 }, () =>
        afterTheFirst(() =>
          ctx.bus.call(telephonyRpc.queueCall, identity, {
            ...input,
            source: 'api',
            idempotency_key: `console:${signedIn.user.id}:${formKey}`,
          }),
        ),
      ),
    cancel: (id: string) =>
      audited(ctx, identity, { path: `/dashboard/calls/${id}/cancel`, status: 200 }, () =>
        ctx.bus.call(telephonyRpc.cancelCall, identity, { id }),
      ),
    /** The call's events that went to webhook endpoints, with their deliveries. */
    events: (id: string) => ctx.bus.call(webhooksRpc.listRecordEvents, identity, { record_id: id }),
  };
}
export type OrganizationCalls = Awaited<ReturnType<typeof callsFor>>;
