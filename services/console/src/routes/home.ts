import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { switchOrganization } from '../domain/sessions.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { signedInOf } from '../http/session.js';
import { homePage } from '../views/home.js';

const switchForm = z.object({ org_id: z.string().min(1).max(64) });

export function homeRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  app.get('/', { config: { access: 'signed-in' } }, async (request, reply) => sendPage(reply, 200, homePage(signedInOf(request))));

  // Every member may switch: it changes only which of their own organizations the session shows.
  app.post('/organization', { config: { access: 'signed-in' } }, async (request, reply) => {
    const form = switchForm.safeParse(formOf(request.body));
    if (form.success) {
      await switchOrganization(ctx, signedInOf(request), form.data.org_id);
      flash(request, reply, ctx.env, 'organization-switched');
    }
    return reply.redirect('/dashboard', 303);
  });
}
