import { z } from 'zod';

export const listLimitSchema = z.coerce.number().int().min(1).max(100).default(20).describe('Page size');

export const cursorSchema = z.string().min(1).max(512).describe('A previous page’s next_cursor; only with the same filters.');

/** The query every list takes; a list adds its own filters with `.extend`. */
export const listQuerySchema = z.object({
  limit: listLimitSchema,
  cursor: cursorSchema.optional(),
});

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * The query of a list that pages both ways (`twoWayPageSchema`): the same `cursor` takes a `next_cursor`
 * or a `prev_cursor` (the cursor knows its direction), so one-way clients need nothing new.
 */
export const twoWayListQuerySchema = listQuerySchema;

/**
 * The page of a list that pages both ways (Newer and Older), as the console's tables do: `next_cursor`
 * leads to older items, `prev_cursor` to newer ones; either goes back in as `cursor`.
 */
export function twoWayPageSchema<T extends z.ZodType>(item: T) {
  return pageSchema(item).extend({
    prev_cursor: z.string().nullable().describe('Cursor of the newer items before this page; null on the first page'),
  });
}

export interface TwoWayPage<T> extends Page<T> {
  prev_cursor: string | null;
}
