import { ApiError, type Bus, clientAddress } from '@voice/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { changePassword, checkCurrentPassword, endSession, listSessions, renameOrganization, renameSelf } from '../domain/account.js';
import { audited } from '../domain/console-actions.js';
import type { ConsoleContext } from '../domain/context.js';
import { liveOrganizationIdentity } from '../domain/identity.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { differentPasswordsMessage, fieldErrors, newPasswordShape, personName, samePasswords } from '../http/password-form.js';
import { signedInOf } from '../http/session.js';
import { accountPage, accountPath } from '../views/account.js';
import type { FieldErrors } from '../views/components.js';

const nameForm = z.object({ name: personName });
const sessionParams = z.object({ id: z.uuid() });

/**
 * The person's own account (any role: it is theirs, not the organization's): their name, their password
 * (the current one required; every other session ends) and their sessions, each of which they can sign out.
 * Changes are recorded in the organization's audit log with the person as actor.
 */
export function accountRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const passwordForm = z
    .object({
      current_password: z.string().min(1, 'Enter your current password.').max(1024),
      ...newPasswordShape(ctx.env.PASSWORD_MIN_LENGTH),
    })
    .refine(samePasswords, { message: differentPasswordsMessage, path: ['password_confirmation'] });

  // The account and the organization's name are the live organization's, in test mode too.
  const identityOf = (request: FastifyRequest) => {
    const signedIn = signedInOf(request);
    return liveOrganizationIdentity(signedIn, request.id, signedIn.organizations?.current?.plan ?? 'lite');
  };
  const asPerson = <T>(request: FastifyRequest, path: string, work: () => Promise<T>) =>
    audited(ctx, identityOf(request), { path, status: 303 }, work);

  async function showPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: { errors?: FieldErrors; name?: string; organizationName?: string } = {},
  ) {
    const signedIn = signedInOf(request);
    return sendPage(
      reply,
      status,
      accountPage(signedIn, await listSessions(ctx, signedIn), { minLength: ctx.env.PASSWORD_MIN_LENGTH, ...form }),
    );
  }

  app.get('/settings/account', { config: { access: 'signed-in' } }, async (request, reply) => showPage(request, reply, 200));

  app.post('/settings/account/name', { config: { access: 'signed-in' } }, async (request, reply) => {
    const fields = formOf(request.body);
    const form = nameForm.safeParse(fields);
    if (!form.success)
      return showPage(request, reply, 400, { errors: fieldErrors(form.error, 'name'), name: (fields.name ?? '').slice(0, 200) });
    await asPerson(request, `${accountPath}/name`, () => renameSelf(ctx, signedInOf(request), form.data.name));
    flash(request, reply, ctx.env, 'name-saved');
    return reply.redirect(accountPath, 303);
  });

  app.post('/settings/account/password', { config: { access: 'signed-in' } }, async (request, reply) => {
    const form = passwordForm.safeParse(formOf(request.body));
    if (!form.success) return showPage(request, reply, 400, { errors: fieldErrors(form.error, 'password') });
    const signedIn = signedInOf(request);
    // A wrong current password changes nothing, so it is not an action in the audit log (as a failed sign-in is not).
    const check = await checkCurrentPassword(ctx, signedIn, form.data.current_password, clientAddress(request.ip, undefined));
    if (check.outcome === 'wrong_credentials')
      return showPage(request, reply, 400, { errors: { current_password: 'Your current password is not this one.' } });
    if (check.outcome === 'throttled') {
      void reply.header('retry-after', String(check.retryAfterSeconds));
      return showPage(request, reply, 429, {
        errors: { current_password: `Too many attempts. Try again in ${check.retryAfterSeconds} seconds.` },
      });
    }
    await asPerson(request, `${accountPath}/password`, () => changePassword(ctx, signedIn, form.data.password));
    flash(request, reply, ctx.env, 'password-changed');
    return reply.redirect(accountPath, 303);
  });

  app.post('/settings/account/sessions/:id/sign-out', { config: { access: 'signed-in' } }, async (request, reply) => {
    const params = sessionParams.safeParse(request.params);
    const signedIn = signedInOf(request);
    await asPerson(request, `${accountPath}/sessions`, async () => {
      // A malformed id names no session either: the same 404 as another person's.
      await endSession(ctx, signedIn, params.success ? params.data.id : '');
    });
    flash(request, reply, ctx.env, 'session-ended');
    return reply.redirect(accountPath, 303);
  });

  app.post('/settings/account/organization', { config: { access: 'signed-in' } }, async (request, reply) => {
    const given = (formOf(request.body).organization_name ?? '').slice(0, 1000);
    try {
      await asPerson(request, `${accountPath}/organization`, () =>
        renameOrganization(ctx, signedInOf(request), identityOf(request), given),
      );
    } catch (error) {
      // The gateway's own refusal of the name shows on its field; anything else is the error page.
      if (error instanceof ApiError && error.param === 'name')
        return showPage(request, reply, error.status, { errors: { organization_name: error.message }, organizationName: given });
      throw error;
    }
    flash(request, reply, ctx.env, 'organization-renamed');
    return reply.redirect(accountPath, 303);
  });
}
