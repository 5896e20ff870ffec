import { z } from 'zod';

/**
 * A list's `cursor` as its links carry it: empty is the first page; one longer than any cursor a list gives is a
 * 400 page in words (a cursor the service cannot read is the service's 400).
 */
export const cursorField = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z.string().max(512, 'The page link is damaged; start again from the first page.').optional(),
);

/** The address of a list that takes no filter: `?cursor=` only. */
export const pageQuerySchema = z.object({ cursor: cursorField });
