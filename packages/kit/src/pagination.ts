import { createHash } from 'node:crypto';
import type { Page, TwoWayPage } from '@voice/proto';
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
  /** `n`: the page of items newer than the position (a `prev_cursor`); absent: older (a `next_cursor`). */
  d: z.literal('n').optional(),
});

/** Which side of its position a cursor's page lies: older items (Older, `next_cursor`) or newer (Newer, `prev_cursor`). */
export type KeysetDirection = 'older' | 'newer';

/** A short digest of the filters a cursor was made for, so a cursor cannot be replayed against others. */
function filterDigest(filters: Record<string, unknown>): string {
  const canonical = Object.keys(filters)
    .filter((key) => key !== 'cursor' && key !== 'limit' && filters[key] !== undefined)
    .sort()
    .map((key) => [key, filters[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
}

export function encodeCursor(position: KeysetPosition, filters: Record<string, unknown>, direction: KeysetDirection = 'older'): string {
  const payload = {
    v: 1,
    t: position.createdAt.toISOString(),
    i: position.id,
    f: filterDigest(filters),
    ...(direction === 'newer' ? { d: 'n' } : {}),
  };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const invalidCursor = () =>
  new ApiError('invalid_cursor', 'The cursor is malformed or was made for other filters; start again without it.', { param: 'cursor' });

function parseCursor(cursor: string, filters: Record<string, unknown>): z.infer<typeof cursorPayloadSchema> {
  let payload: z.infer<typeof cursorPayloadSchema>;
  try {
    payload = cursorPayloadSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw invalidCursor();
  }
  if (payload.f !== filterDigest(filters)) throw invalidCursor();
  return payload;
}

/**
 * Decodes a cursor of a one-way list (Older only) made for exactly these filters; anything else, a
 * two-way list's `prev_cursor` included, is 400 `invalid_cursor`.
 */
export function decodeCursor(cursor: string | undefined, filters: Record<string, unknown>): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const payload = parseCursor(cursor, filters);
  if (payload.d !== undefined) throw invalidCursor();
  return { createdAt: new Date(payload.t), id: payload.i };
}

/** A decoded cursor of a two-way list: where the previous page was, and which side of it to read. */
export interface KeysetCursor {
  position: KeysetPosition;
  direction: KeysetDirection;
}

/** Decodes a `next_cursor` or `prev_cursor` of a two-way list made for exactly these filters; else 400. */
export function decodeTwoWayCursor(cursor: string | undefined, filters: Record<string, unknown>): KeysetCursor | undefined {
  if (cursor === undefined) return undefined;
  const payload = parseCursor(cursor, filters);
  return { position: { createdAt: new Date(payload.t), id: payload.i }, direction: payload.d === 'n' ? 'newer' : 'older' };
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
 * "Before this position" (newer items), the mirror of `afterPosition`, read in ascending order from the
 * position so the same index serves it scanned backwards, as cheap as a page the other way.
 */
export function beforePosition(position: KeysetPosition) {
  return {
    AND: [{ createdAt: { gte: position.createdAt } }, { OR: [{ createdAt: { gt: position.createdAt } }, { id: { gt: position.id } }] }],
  };
}

const ascendingOrder = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/**
 * The `where` fragment and order of a two-way list's page: older than the cursor (or from the top) in
 * list order, or newer than it in reverse order (`toTwoWayPage` turns those rows back).
 */
export function keysetWindow(cursor: KeysetCursor | undefined) {
  if (cursor?.direction === 'newer') return { where: beforePosition(cursor.position), orderBy: ascendingOrder };
  return { where: afterPosition(cursor?.position), orderBy: keysetOrder };
}

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

/**
 * A two-way list's page from rows fetched with `keysetWindow` and `take: limit + 1`, newest first either
 * way. `next_cursor` (Older) and `prev_cursor` (Newer) are null only where nothing lies that way: the
 * first page has no Newer; a Newer page always has an Older (the page it came from).
 */
export function toTwoWayPage<Row extends KeysetPosition, Item>(
  rows: Row[],
  limit: number,
  filters: Record<string, unknown>,
  cursor: KeysetCursor | undefined,
  toItem: (row: Row) => Item,
): TwoWayPage<Item> {
  const extra = rows.length > limit;
  const window = extra ? rows.slice(0, limit) : rows;
  const newer = cursor?.direction === 'newer';
  const pageRows = newer ? window.reverse() : window;
  const first = pageRows[0] ?? cursor?.position;
  const last = pageRows.at(-1) ?? cursor?.position;
  const hasOlder = newer ? last !== undefined : extra;
  const hasNewer = newer ? extra : cursor !== undefined;
  return {
    data: pageRows.map(toItem),
    has_more: hasOlder,
    next_cursor: hasOlder && last ? encodeCursor(last, filters, 'older') : null,
    prev_cursor: hasNewer && first ? encodeCursor(first, filters, 'newer') : null,
  };
}
