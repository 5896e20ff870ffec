import { ApiError, type Bus } from '@voice/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { waitingApprovals } from '../domain/approvals.js';
import type { ConsoleContext } from '../domain/context.js';
import { seeOrganizations } from '../domain/organizations.js';
import { canManage } from '../domain/roles.js';
import { resumeSession, type SignedIn } from '../domain/sessions.js';
import { newToken, sameSecret } from '../domain/tokens.js';
import { localeFrom } from '../views/format.js';
import { formCookie, readToken, sessionCookie, setCookie } from './cookies.js';
import { takeFlash } from './flash.js';
import { formOf, formWithListOf } from './forms.js';

/**
 * Who may use a route, which every console route declares (`installSessionCheck` refuses to register one
 * that does not): `asset` (the console's own static files: no session looked up, no form), `public`
 * (sign-in, invitations: forms carry the pre-session form token), `signed-in` (any member: what members
 * may see) or `manager` (owners and admins, whatever the method: the changes, and the pages that lead to
 * one, such as a confirmation or a form; members get 403 even for a hand-made request).
 */
export const accessLevels = ['asset', 'public', 'signed-in', 'manager'] as const;
export type Access = (typeof accessLevels)[number];

declare module 'fastify' {
  interface FastifyRequest {
    /** The person of a signed-in request, scoped to the session's current organization. */
    signedIn?: SignedIn;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** The one field the route's form may send many times (a list of checkboxes), see `formWithListOf`. */
    repeatedField?: string;
  }
}

const signInPath = '/dashboard/sign-in';
const stateChanging = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The signed-in person of a route whose access is `signed-in` or `manager`. */
export function signedInOf(request: FastifyRequest): SignedIn {
  if (!request.signedIn) throw new ApiError('unauthenticated', 'Sign in first.');
  return request.signedIn;
}

/**
 * The form token of a page shown before sign-in, from its cookie (made on first view). Cross-site pages
 * cannot read it, and SameSite=Lax keeps the cookie off their posts, so a forged sign-in post is refused.
 */
export function preSessionFormToken(ctx: ConsoleContext, request: FastifyRequest, reply: FastifyReply): string {
  const existing = readToken(request, formCookie);
  if (existing) return existing;
  const token = newToken();
  setCookie(request, reply, ctx.env, { name: formCookie, value: token, maxAgeSeconds: 24 * 60 * 60 });
  return token;
}

/**
 * Resolves the session of every console request and enforces the route's access: no session → the
 * sign-in page; a state-changing request without the session's form token (or, before sign-in, the form
 * cookie's) → 403; a member on a manager's route → 403, a page as much as a change. A route that declares
 * no access is refused when it is registered, so the console does not start with it: forgetting the
 * declaration cannot leave a page open (closed unless it says otherwise). An Authorization header is never
 * looked at: the console knows people by their session only. A signed-in request then learns its organizations' names
 * from the gateway (domain/organizations.ts).
 */
export function installSessionCheck(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!accessLevels.includes(access as Access)) {
      throw new Error(
        `console route ${[route.method].flat().join(',')} ${route.url} must declare config.access (one of ${accessLevels.join(', ')})`,
      );
    }
  });
  app.addHook('preHandler', async (request, reply) => {
    // The not-found page answers any address, as it did before sign-in; it shows nothing of an organization.
    if (request.is404) return;
    const access = request.routeOptions.config.access;
    if (access === 'asset') return;
    const token = readToken(request, sessionCookie);
    if (token) request.signedIn = await resumeSession(ctx, token);
    // How the pages write numbers and dates for this person: their browser's language, their time zone.
    if (request.signedIn) request.signedIn.locale = localeFrom(request.headers['accept-language']);
    // A done action's message, from the POST that redirected here (http/flash.ts).
    if (request.signedIn && request.method === 'GET') request.signedIn.toast = takeFlash(request, reply, ctx.env);
    const changes = stateChanging.has(request.method);
    const repeated = request.routeOptions.config.repeatedField;
    const posted = (repeated ? formWithListOf(request.body, repeated).fields : formOf(request.body))._csrf;
    if (access === 'public') {
      const expected = readToken(request, formCookie);
      if (changes && !(expected && sameSecret(posted, expected))) throw formTokenError();
      return;
    }
    const signedIn = request.signedIn;
    if (!signedIn) {
      await reply.redirect(signInPath, 303);
      return reply;
    }
    if (changes && !sameSecret(posted, signedIn.csrfToken)) throw formTokenError();
    // Anything but `signed-in` is a manager's: an access level this check does not know is the strictest.
    if (access !== 'signed-in' && !canManage(signedIn.role)) {
      throw new ApiError('forbidden', changes ? 'Only owners and admins can make changes in this organization.' : managersPageMessage);
    }
    // Names for the header and the pages, and the current organization for the gateway calls that follow;
    // for a page, the count of approvals waiting for a person, which the navigation shows.
    const [organizations, pendingApprovals] = await Promise.all([
      seeOrganizations(ctx, signedIn, request.id),
      request.method === 'GET' ? waitingApprovals(ctx, signedIn, request.id) : undefined,
    ]);
    signedIn.organizations = organizations;
    if (pendingApprovals !== undefined) signedIn.pendingApprovals = pendingApprovals;
  });
}

const managersPageMessage = 'Only owners and admins can open this page in this organization: it leads to a change members cannot make.';

const formTokenError = () =>
  new ApiError('forbidden', 'This form is missing its security token or it is out of date. Go back, reload the page and try again.');
