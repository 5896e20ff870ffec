import { ApiError } from '@voice/kit';
import type { z } from 'zod';

/**
 * A route's path parameters, checked by its schema. One the schema refuses (an id longer than any id) names
 * nothing the console has, so the address has no page: 404, never a 500 from an unhandled ZodError.
 */
export function paramsOf<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new ApiError('not_found', 'There is no page at this address.');
  return parsed.data;
}

/** A route's query parameters, checked by its schema: a 400 page naming the first that is wrong. */
export function queryOf<T extends z.ZodType>(schema: T, query: unknown): z.output<T> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = issue?.path.join('.') || 'query';
  throw new ApiError('invalid_request', `The address's ${name} parameter is not valid: ${issue?.message ?? 'check it'}.`, { param: name });
}

/**
 * A record the operation does not find for this organization (another organization's id, or one gone
 * meanwhile) as a 404 page that says so in the page's words, rather than the service's.
 */
export async function notFoundAs<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') throw new ApiError('not_found', message);
    throw error;
  }
}
