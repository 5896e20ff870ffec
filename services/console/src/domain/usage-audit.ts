import { ApiError, type Bus } from '@voice/kit';
import { auditActors, auditStatusClasses, gatewayRpc, type listAuditLogQuerySchema } from '@voice/proto';
import { z } from 'zod';
import { personOnGateway } from './identity.js';
import type { SignedIn } from './sessions.js';

/** The audit log page's filters as its GET form sends them: empty fields mean "any". */
const blankIsAny = (value: unknown) => (value === '' ? undefined : value);
export const auditFilterSchema = z.object({
  key_id: z.preprocess(
    blankIsAny,
    z
      .string()
      .regex(/^key_[0-9A-Za-z]{8,40}$/, 'Choose a key from the list.')
      .optional(),
  ),
  actor_type: z.preprocess(blankIsAny, z.enum(auditActors, 'Choose API calls or console actions.').optional()),
  status_class: z.preprocess(blankIsAny, z.enum(auditStatusClasses, 'Choose 2xx, 4xx or 5xx.').optional()),
  path_prefix: z.preprocess(blankIsAny, z.string().trim().startsWith('/', 'A path starts with /.').max(200).optional()),
  from: z.preprocess(blankIsAny, z.iso.date('Enter the first day as a date.').optional()),
  to: z.preprocess(blankIsAny, z.iso.date('Enter the last day as a date.').optional()),
  cursor: z.preprocess(blankIsAny, z.string().max(512).optional()),
});
export type AuditFilters = z.output<typeof auditFilterSchema>;
type AuditQuery = z.input<typeof listAuditLogQuerySchema>;

/** The form's query, or a 400 page naming the first field that is wrong. */
export function auditFiltersOf(query: unknown): AuditFilters {
  const parsed = auditFilterSchema.safeParse(query ?? {});
  if (!parsed.success) throw new ApiError('invalid_request', parsed.error.issues[0]?.message ?? 'Check the filters.');
  return parsed.data;
}

const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00.000Z`) + 86_400_000).toISOString();

/** The gateway's list query for the filters: the date range is whole UTC days, both ends included. */
export function auditQueryOf(filters: AuditFilters, limit: number): AuditQuery {
  const { from, to, cursor, ...rest } = filters;
  return {
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ...(from ? { created_after: `${from}T00:00:00.000Z` } : {}),
    ...(to ? { created_before: nextDay(to) } : {}),
    ...(cursor ? { cursor } : {}),
    limit,
  };
}

/** The filters as a query string (without the cursor), for the next page link and the CSV link. */
export function filterQueryString(filters: AuditFilters, cursor?: string): string {
  const { cursor: _current, ...rest } = filters;
  const entries = Object.entries({ ...rest, cursor }).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return new URLSearchParams(entries).toString();
}

/** The organization's audit log for one person, read through the gateway (the organization is always theirs). */
export async function auditLogFor(ctx: { bus: Bus }, signedIn: SignedIn, requestId: string) {
  const { organization, identity } = await personOnGateway(ctx, signedIn, requestId);
  return {
    organization,
    keys: async () => (await ctx.bus.call(gatewayRpc.listKeys, identity, {})).data,
    page: (query: AuditQuery) => ctx.bus.call(gatewayRpc.listAuditLog, identity, query),
    usage: () => ctx.bus.call(gatewayRpc.getUsageHistory, identity, {}),
  };
}
