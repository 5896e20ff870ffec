import type { KeysetPosition } from '@voice/kit';

/**
 * "After this position" in (created_at desc, id desc) order, written so Postgres can start the index scan
 * at the position: `created_at <= t` bounds the range, and the OR only sorts out rows sharing `t`.
 * kit's `afterPosition` (`created_at < t OR (created_at = t AND id < i)`) gives the planner no bound, so
 * it walks the index from the top and a page at row 900,000 costs 900,000 rows (see bench/calls-list.ts).
 */
export function afterKeyset(position: KeysetPosition | undefined) {
  if (!position) return {};
  return {
    createdAt: { lte: position.createdAt },
    OR: [{ createdAt: { lt: position.createdAt } }, { id: { lt: position.id } }],
  };
}

/** The `created_after` / `created_before` filter of a list (after inclusive, before exclusive). */
export function createdRange(after: string | undefined, before: string | undefined) {
  if (!after && !before) return {};
  return { createdAt: { ...(after ? { gte: new Date(after) } : {}), ...(before ? { lt: new Date(before) } : {}) } };
}
