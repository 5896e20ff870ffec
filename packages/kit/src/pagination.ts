import { createHash } from 'node:crypto';
import type { Page } from '@voice/proto';
import { z } from 'zod';
import { ApiError } from './errors.js';

/** Where the previous page stopped, in the list's sort order (created_at desc, id desc). */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

const cursorPayloadSchema = z.object({
  v: z.literal(1),
  t: z.iso.datetime(),
  i: z.string().min(1).max(64),
  f: z.string().length(16),
});

/** A short digest of the filters a cursor was made for, so a cursor cannot be replayed against others. */
function filterDigest(filters: Record<string, unknown>): string {
  const canonical = Object.keys(filters)
    .filter((key) => key !== 'cursor' && key !== 'limit' && filters[key] !== undefined)
    .sort()
    .map((key) => [key, filters[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
}

export function encodeCursor(position: KeysetPosition, filters: Record<string, unknown>): string {
  const payload = { v: 1, t: position.createdAt.toISOString(), i: position.id, f: filterDigest(filters) };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** Decodes a cursor made for exactly these filters; anything else is 400 `invalid_cursor`. */
export function decodeCursor(cursor: string | undefined, filters: Record<string, unknown>): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const invalid = new ApiError('invalid_cursor', 'The cursor is malformed or was made for other filters; start again without it.', {
    param: 'cursor',
  });
  let payload: z.infer<typeof cursorPayloadSchema>;
  try {
    payload = cursorPayloadSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw invalid;
  }
  if (payload.f !== filterDigest(filters)) throw invalid;
  return { createdAt: new Date(payload.t), id: payload.i };
}

/**
 * The Prisma `where` fragment for "after this position" in (created_at desc, id desc) order. The leading
 * `created_at <= t` gives Postgres an index bound (a bare `a < t OR (a = t AND id < i)` gives none, and a
 * deep page would read every row before it), so with an index on (org_id, created_at desc, id desc) a page
 * deep in the list costs what the first one does. Wrapped in AND so it never collides with a caller's own
 * created_at filter.
 */
export function afterPosition(position: KeysetPosition | undefined) {
  if (!position) return {};
  return {
    AND: [{ createdAt: { lte: position.createdAt } }, { OR: [{ createdAt: { lt: position.createdAt } }, { id: { lt: position.id } }] }],
  };
}

/**
 * The Prisma `where` fragment of a list's `created_after` / `created_before` filter (after inclusive, before
 * exclusive). Spread beside `afterPosition`, which keeps its own created_at bound inside an AND.
 */
export function createdBetween(after: string | undefined, before: string | undefined) {
  if (!after && !before) return {};
  return { createdAt: { ...(after ? { gte: new Date(after) } : {}), ...(before ? { lt: new Date(before) } : {}) } };
}

export const keysetOrder = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/**
 * Builds a page from rows fetched with `take: limit + 1`: the extra row only tells whether there is more.
 */
export function toPage<Row extends KeysetPosition, Item>(
  rows: Row[],
  limit: number,
  filters: Record<string, unknown>,
  toItem: (row: Row) => Item,
): Page<Item> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(toItem),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last, filters) : null,
  };
}
