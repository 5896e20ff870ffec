import type { Bus } from '@voice/kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { acceptInvitation, inspectInvitation, invitationPath } from '../domain/invitations.js';
import { invitedOrganizationName } from '../domain/organizations.js';
import { setSessionCookie } from '../http/cookies.js';
import { deviceOf } from '../http/device.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { differentPasswordsMessage, newPasswordShape, personName, samePasswords } from '../http/password-form.js';
import { preSessionFormToken } from '../http/session.js';
import { acceptInvitationPage, invitationGonePage } from '../views/invitation.js';

const tokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{20,100}$/) });

/** The invitation link's page: set a name and password (or prove an existing account), then signed in. */
export function invitationRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const newAccountForm = z
    .object({
      name: personName,
      ...newPasswordShape(ctx.env.PASSWORD_MIN_LENGTH),
    })
    .refine(samePasswords, differentPasswordsMessage);
  const existingAccountForm = z.object({ password: z.string().min(1, 'Enter your password.').max(1024) });

  app.get('/invitations/:token', { config: { access: 'public' } }, async (request, reply) => {
    const params = tokenParams.safeParse(request.params);
    if (!params.success) return sendPage(reply, 404, invitationGonePage('unknown'));
    const invitation = await inspectInvitation(ctx, params.data.token);
    if (invitation.state !== 'usable')
      return sendPage(reply, invitation.state === 'unknown' ? 404 : 410, invitationGonePage(invitation.state));
    const csrfToken = preSessionFormToken(ctx, request, reply);
    const organizationName = (await invitedOrganizationName(ctx, invitation, request.id)) ?? invitation.orgId;
    return sendPage(
      reply,
      200,
      acceptInvitationPage({
        invitation,
        organizationName,
        action: invitationPath(params.data.token),
        csrfToken,
        minLength: ctx.env.PASSWORD_MIN_LENGTH,
      }),
    );
  });

  app.post('/invitations/:token', { config: { access: 'public' } }, async (request, reply) => {
    const params = tokenParams.safeParse(request.params);
    if (!params.success) return sendPage(reply, 404, invitationGonePage('unknown'));
    const { token } = params.data;
    const invitation = await inspectInvitation(ctx, token);
    if (invitation.state !== 'usable')
      return sendPage(reply, invitation.state === 'unknown' ? 404 : 410, invitationGonePage(invitation.state));
    const fields = formOf(request.body);
    const retry = async (error: string, status = 400) =>
      sendPage(
        reply,
        status,
        acceptInvitationPage({
          invitation,
          organizationName: (await invitedOrganizationName(ctx, invitation, request.id)) ?? invitation.orgId,
          action: invitationPath(token),
          csrfToken: preSessionFormToken(ctx, request, reply),
          minLength: ctx.env.PASSWORD_MIN_LENGTH,
          error,
          ...(fields.name ? { name: fields.name } : {}),
        }),
      );
    const form = (invitation.hasAccount ? existingAccountForm : newAccountForm).safeParse(fields);
    if (!form.success) return retry(form.error.issues[0]?.message ?? 'Check the form.');
    const result = await acceptInvitation(ctx, token, { ...form.data, ...deviceOf(request) });
    if (result.outcome === 'wrong_credentials') return retry('That password is wrong.', 401);
    if (result.outcome === 'throttled') {
      void reply.header('retry-after', String(result.retryAfterSeconds));
      return retry(`Too many attempts. Try again in ${result.retryAfterSeconds} seconds.`, 429);
    }
    if (result.outcome === 'gone') return sendPage(reply, 410, invitationGonePage('used'));
    setSessionCookie(request, reply, ctx.env, result.sessionToken);
    return reply.redirect('/dashboard', 303);
  });
}
