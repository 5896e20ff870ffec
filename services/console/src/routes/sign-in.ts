import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { signOut, signOutEverywhere } from '../domain/sessions.js';
import { signIn } from '../domain/sign-in.js';
import { clearCookie, sessionCookie, setSessionCookie } from '../http/cookies.js';
import { deviceOf } from '../http/device.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { preSessionFormToken, signedInOf } from '../http/session.js';
import type { ConsoleMetrics } from '../metrics.js';
import { signInPage } from '../views/sign-in.js';

const signInForm = z.object({ email: z.string().trim().max(320), password: z.string().max(1024) });

/**
 * Where to go after signing in: only the authorization page of the OAuth flow may be named (it sends
 * people to sign in and back), so the parameter cannot turn the sign-in page into an open redirect.
 */
function afterSignIn(next: unknown): string | undefined {
  return typeof next === 'string' && next.startsWith('/dashboard/oauth/authorize?') && next.length <= 4096 ? next : undefined;
}

export const wrongCredentialsMessage = 'The e-mail address or the password is wrong.';

/** `metrics` counts each sign-in's outcome. */
export function signInRoutes(app: FastifyInstance, ctx: ConsoleContext, metrics?: ConsoleMetrics): void {
  app.get('/sign-in', { config: { access: 'public' } }, async (request, reply) => {
    const next = afterSignIn((request.query as { next?: unknown }).next);
    if (request.signedIn) return reply.redirect(next ?? '/dashboard', 303);
    const signedOut = (request.query as { signed_out?: string }).signed_out !== undefined;
    return sendPage(
      reply,
      200,
      signInPage({
        csrfToken: preSessionFormToken(ctx, request, reply),
        next,
        ...(signedOut ? { info: 'You are signed out.' } : {}),
      }),
    );
  });

  app.post('/sign-in', { config: { access: 'public' } }, async (request, reply) => {
    const csrfToken = preSessionFormToken(ctx, request, reply);
    const next = afterSignIn(formOf(request.body).next);
    const form = signInForm.safeParse(formOf(request.body));
    if (!form.success) return sendPage(reply, 400, signInPage({ csrfToken, next, error: 'Enter your e-mail address and password.' }));
    const { email, password } = form.data;
    const result = await signIn(ctx, { email, password, ...deviceOf(request) });
    metrics?.signIn(result.outcome);
    switch (result.outcome) {
      case 'signed_in':
        setSessionCookie(request, reply, ctx.env, result.token);
        return reply.redirect(next ?? '/dashboard', 303);
      case 'throttled':
        void reply.header('retry-after', String(result.retryAfterSeconds));
        return sendPage(
          reply,
          429,
          signInPage({ csrfToken, next, email, error: `Too many sign-in attempts. Try again in ${result.retryAfterSeconds} seconds.` }),
        );
      case 'wrong_credentials':
        return sendPage(reply, 401, signInPage({ csrfToken, next, email, error: wrongCredentialsMessage }));
    }
  });

  app.post('/sign-out', { config: { access: 'signed-in' } }, async (request, reply) => {
    await signOut(ctx, signedInOf(request));
    clearCookie(request, reply, ctx.env, sessionCookie);
    return reply.redirect('/dashboard/sign-in?signed_out', 303);
  });

  app.post('/sign-out-everywhere', { config: { access: 'signed-in' } }, async (request, reply) => {
    await signOutEverywhere(ctx, signedInOf(request));
    clearCookie(request, reply, ctx.env, sessionCookie);
    return reply.redirect('/dashboard/sign-in?signed_out', 303);
  });
}
