import { dependencyReason, toApiError } from '@voice/kit';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorPage } from '../views/error.js';
import type { Html } from '../views/html.js';

/**
 * Pages load nothing from elsewhere and run no inline script or style; forms post only here; no site may
 * frame the console (clickjacking).
 */
export const contentSecurityPolicy = (formActions = "'self'") =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action ${formActions}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');

export function sendPage(reply: FastifyReply, status: number, body: Html): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(body.text);
}

/**
 * Security headers (and `Server-Timing`) on every answer, and errors as pages rather than the API's JSON envelope. Pages are
 * never cached: they show one person's organization.
 */
export function installPageHandling(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    // A page may widen form-action (the OAuth consent form redirects to the client); nothing else.
    if (!reply.hasHeader('content-security-policy')) void reply.header('content-security-policy', contentSecurityPolicy());
    void reply.headers({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
    // The console's own time for this answer (routing, session, gateway calls, rendering), so a browser's
    // devtools and the bench tell it from the gateway's proxying and the network. Only a duration: a
    // client can measure the whole anyway.
    void reply.header('server-timing', `console;dur=${reply.elapsedTime.toFixed(1)}`);
    done(null, payload);
  });
  app.setErrorHandler((error: unknown, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'internal') request.log.error({ err: error }, 'unhandled error');
    else if (apiError.status >= 500) request.log.warn({ reason: dependencyReason(error), code: apiError.code }, apiError.message);
    const message = apiError.code === 'internal' ? 'Something went wrong on our side. Try again in a moment.' : apiError.message;
    void reply.headers(apiError.headers);
    return sendPage(reply, apiError.status, errorPage(apiError.status, message, request.signedIn));
  });
  app.setNotFoundHandler((request, reply) => sendPage(reply, 404, errorPage(404, 'There is no page at this address.', request.signedIn)));
}
