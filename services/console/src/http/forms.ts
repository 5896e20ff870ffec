import fastifyFormbody from '@fastify/formbody';
import { ApiError } from '@voice/kit';
import type { FastifyInstance } from 'fastify';

/** A posted form's fields, or a query's parameters: each given once, as text. */
export type FormFields = Record<string, string>;

/**
 * Parses `application/x-www-form-urlencoded`, what an HTML form posts without JavaScript, with
 * @fastify/formbody (fast-querystring, as fastify's own query strings): it never throws, a value that is
 * not valid percent-encoding is kept as sent, and a field sent twice becomes a list, which `fieldsOf`
 * refuses.
 */
export async function acceptForms(app: FastifyInstance): Promise<void> {
  await app.register(fastifyFormbody);
}

/**
 * The fields of a parsed form or query. None of the console's forms sends a name twice, so a repeated one
 * is a hand-made request whose meaning is ambiguous (which value counts?): a 400 naming it, as RFC 6749
 * also asks of OAuth requests. A value that is not text (a JSON body sent to the OAuth endpoints) is
 * refused too. Anything that is no object (no body at all) has no fields.
 */
export function fieldsOf(source: unknown, where: 'form' | 'query' = 'form'): FormFields {
  if (!source || typeof source !== 'object') return {};
  const entries = Object.entries(source);
  for (const [name, value] of entries) {
    if (typeof value === 'string') continue;
    if (Array.isArray(value)) throw new ApiError('invalid_request', `The ${where} gives ${shown(name)} more than once.`, { param: name });
    throw new ApiError('invalid_request', `The ${where} field ${shown(name)} is not text.`, { param: name });
  }
  // fromEntries makes even a field named __proto__ a plain own field.
  return Object.fromEntries(entries) as FormFields;
}

/** Every page's query string is checked as `fieldsOf` checks a form, before the route reads it. */
export function refuseRepeatedQueryParameters(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      fieldsOf(request.query, 'query');
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

/** A posted form's fields (see `fieldsOf`). */
export const formOf = (body: unknown): FormFields => fieldsOf(body, 'form');

/**
 * A posted form with one field that may come many times: a list of checkboxes sharing a name (the leads
 * list's "choose" boxes), the one form that sends a name repeatedly. That name is always a list (one box
 * checked arrives as text, none as nothing); every other name is checked as `formOf` checks it.
 */
export function formWithListOf(body: unknown, listName: string): { fields: FormFields; list: string[] } {
  const source = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const { [listName]: listed, ...rest } = source;
  const values = listed === undefined ? [] : Array.isArray(listed) ? listed : [listed];
  if (!values.every((value): value is string => typeof value === 'string')) {
    throw new ApiError('invalid_request', `The form field ${shown(listName)} is not text.`, { param: listName });
  }
  return { fields: fieldsOf(rest, 'form'), list: values };
}

/** A name as the error message quotes it: short, since the name is the sender's. */
const shown = (name: string) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
