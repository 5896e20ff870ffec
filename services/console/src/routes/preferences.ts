import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { signedInOf } from '../http/session.js';
import { setUserTimeZone } from '../store/users.js';
import { isTimeZone } from '../views/format.js';
import { preferencesPath } from '../views/layout.js';
import { preferencesPage } from '../views/preferences.js';

const preferencesForm = z.object({
  time_zone: z.string().max(64).refine(isTimeZone, 'Choose a time zone from the list.'),
});

/** The person's own settings: anyone signed in changes their own, whatever their role. */
export function preferenceRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  app.get('/settings/preferences', { config: { access: 'signed-in' } }, async (request, reply) =>
    sendPage(reply, 200, preferencesPage(signedInOf(request))),
  );

  app.post('/settings/preferences', { config: { access: 'signed-in' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const form = preferencesForm.safeParse(formOf(request.body));
    if (!form.success)
      return sendPage(reply, 400, preferencesPage(signedIn, { error: form.error.issues[0]?.message ?? 'Check the form.' }));
    await setUserTimeZone(ctx.prisma, signedIn.user.id, form.data.time_zone);
    flash(request, reply, ctx.env, 'preferences-saved');
    return reply.redirect(preferencesPath, 303);
  });
}
