import { clientAddress } from '@voice/kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { inspectPasswordReset, passwordResetPath, requestPasswordReset, resetPassword } from '../domain/password-reset.js';
import { setSessionCookie } from '../http/cookies.js';
import { deviceOf } from '../http/device.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { differentPasswordsMessage, fieldErrors, newPasswordShape, samePasswords } from '../http/password-form.js';
import { preSessionFormToken } from '../http/session.js';
import { forgotPasswordPage, resetLinkGonePage, resetPasswordPage, resetRequestedMessage } from '../views/password-reset.js';

const forgotForm = z.object({ email: z.email().max(320) });
const tokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{20,100}$/) });

/** "Forgot password?" (public): ask for a link by e-mail, then the link's page sets a new password and signs in. */
export function passwordResetRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const newPasswordForm = z
    .object(newPasswordShape(ctx.env.PASSWORD_MIN_LENGTH))
    .refine(samePasswords, { message: differentPasswordsMessage, path: ['password_confirmation'] });

  app.get('/forgot-password', { config: { access: 'public' } }, async (request, reply) =>
    sendPage(reply, 200, forgotPasswordPage({ csrfToken: preSessionFormToken(ctx, request, reply) })),
  );

  app.post('/forgot-password', { config: { access: 'public' } }, async (request, reply) => {
    const csrfToken = preSessionFormToken(ctx, request, reply);
    const fields = formOf(request.body);
    const form = forgotForm.safeParse({ email: fields.email?.trim() });
    const email = (fields.email ?? '').slice(0, 320);
    if (!form.success) return sendPage(reply, 400, forgotPasswordPage({ csrfToken, email, error: 'Enter your e-mail address.' }));
    const result = await requestPasswordReset(ctx, { email: form.data.email, clientAddress: clientAddress(request.ip, undefined) });
    if (result.outcome === 'throttled') {
      void reply.header('retry-after', String(result.retryAfterSeconds));
      return sendPage(
        reply,
        429,
        forgotPasswordPage({ csrfToken, email, error: `Too many requests. Try again in ${result.retryAfterSeconds} seconds.` }),
      );
    }
    return sendPage(reply, 200, forgotPasswordPage({ csrfToken, info: resetRequestedMessage }));
  });

  app.get('/reset-password/:token', { config: { access: 'public' } }, async (request, reply) => {
    const params = tokenParams.safeParse(request.params);
    if (!params.success) return sendPage(reply, 404, resetLinkGonePage('unknown'));
    const link = await inspectPasswordReset(ctx, params.data.token);
    if (link.state !== 'usable') return sendPage(reply, link.state === 'unknown' ? 404 : 410, resetLinkGonePage(link.state));
    return sendPage(
      reply,
      200,
      resetPasswordPage({
        email: link.email,
        action: passwordResetPath(params.data.token),
        csrfToken: preSessionFormToken(ctx, request, reply),
        minLength: ctx.env.PASSWORD_MIN_LENGTH,
      }),
    );
  });

  app.post('/reset-password/:token', { config: { access: 'public' } }, async (request, reply) => {
    const params = tokenParams.safeParse(request.params);
    if (!params.success) return sendPage(reply, 404, resetLinkGonePage('unknown'));
    const { token } = params.data;
    const link = await inspectPasswordReset(ctx, token);
    if (link.state !== 'usable') return sendPage(reply, link.state === 'unknown' ? 404 : 410, resetLinkGonePage(link.state));
    const form = newPasswordForm.safeParse(formOf(request.body));
    if (!form.success)
      return sendPage(
        reply,
        400,
        resetPasswordPage({
          email: link.email,
          action: passwordResetPath(token),
          csrfToken: preSessionFormToken(ctx, request, reply),
          minLength: ctx.env.PASSWORD_MIN_LENGTH,
          errors: fieldErrors(form.error, 'password'),
        }),
      );
    const result = await resetPassword(ctx, token, { password: form.data.password, ...deviceOf(request) });
    // Another tab used the link (or it expired) while this form was filled in.
    if (result.outcome === 'gone') return sendPage(reply, 410, resetLinkGonePage('used'));
    setSessionCookie(request, reply, ctx.env, result.sessionToken);
    return reply.redirect('/dashboard', 303);
  });
}
