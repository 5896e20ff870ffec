import { z } from 'zod';

export const listLimitSchema = z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1 to 100.');

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
