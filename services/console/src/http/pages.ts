import { ApiError, dependencyReason, toApiError } from '@voice/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorPage } from '../views/error.js';
import type { Html } from '../views/html.js';

/**
 * Pages load nothing from elsewhere and run no inline script or style; forms post only here; no site may
 * frame the console (clickjacking).
 */
export const contentSecurityPolicy = (formActions = "'self'", mediaOrigin?: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // A call's page adds its recording's origin (the carrier's) for its <audio> player; no other page plays media.
    ...(mediaOrigin ? [`media-src 'self' ${mediaOrigin}`] : []),
    `form-action ${formActions}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');

export function sendPage(reply: FastifyReply, status: number, body: Html): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(body.text);
}

/**
 * The ApiError a page shows for what was thrown. A body of a type no page takes (JSON, multipart) is named as
 * such: kit's message speaks of the API.
 */
function pageError(error: unknown): ApiError {
  if ((error as { code?: unknown }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('invalid_request', 'The console takes forms as a browser sends them (application/x-www-form-urlencoded).', {
      param: 'content-type',
      cause: error,
    });
  }
  return toApiError(error);
}

/**
 * An error as a page, with its status; the message of an unexpected one says nothing of its cause (logged).
 * Also the answer to errors fastify's router raises before any route runs (a path that is not valid
 * percent-encoding), through kit's `routerErrorAnswer`.
 */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, apiError: ApiError): FastifyReply {
  const error = apiError.cause ?? apiError;
  if (apiError.code === 'internal') request.log.error({ err: error }, 'unhandled error');
  else if (apiError.status >= 500) request.log.warn({ reason: dependencyReason(error), code: apiError.code }, apiError.message);
  const message = apiError.code === 'internal' ? 'Something went wrong on our side. Try again in a moment.' : apiError.message;
  void reply.headers(apiError.headers);
  return sendPage(reply, apiError.status, errorPage(apiError.status, message, request.signedIn));
}

/**
 * Security headers (and `Server-Timing`) on every answer. Pages are never cached: they show one person's
 * organization.
 */
function pageHeaders(reply: FastifyReply): void {
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
}

export const pagesPrefix = '/dashboard';
const isPageUrl = (url: string) =>
  url === pagesPrefix || (['/', '?'].includes(url.charAt(pagesPrefix.length)) && url.startsWith(pagesPrefix));

/**
 * kit's `routerErrorAnswer`: an address under /dashboard the router refuses before any route runs (a path
 * that is not valid percent-encoding) gets an error page, with the pages' headers; others keep the envelope.
 */
export function answerRouterError(apiError: ApiError, request: FastifyRequest, reply: FastifyReply): boolean {
  if (!isPageUrl(request.url)) return false;
  pageHeaders(reply);
  sendErrorPage(request, reply, apiError);
  return true;
}

/** Security headers on every answer, and errors as pages rather than the API's JSON envelope. */
export function installPageHandling(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    pageHeaders(reply);
    done(null, payload);
  });
  app.setErrorHandler((error: unknown, request, reply) => sendErrorPage(request, reply, pageError(error)));
  app.setNotFoundHandler((request, reply) => sendPage(reply, 404, errorPage(404, 'There is no page at this address.', request.signedIn)));
}
