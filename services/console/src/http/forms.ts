import type { FastifyInstance } from 'fastify';

/** A posted form's fields; a repeated field keeps its last value. */
export type FormFields = Record<string, string>;

/** Parses `application/x-www-form-urlencoded`, what an HTML form posts without JavaScript. */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

export function formOf(body: unknown): FormFields {
  return body && typeof body === 'object' ? (body as FormFields) : {};
}
