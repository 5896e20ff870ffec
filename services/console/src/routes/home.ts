import type { Bus } from '@voice/kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { overviewPeriodOf, readOverview } from '../domain/overview.js';
import { switchOrganization } from '../domain/sessions.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { signedInOf } from '../http/session.js';
import { overviewPage } from '../views/overview.js';

const switchForm = z.object({ org_id: z.string().min(1).max(64) });

export function homeRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  // The overview (`?period=today|7d|30d`): read-only, for every role.
  app.get('/', { config: { access: 'signed-in' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const period = overviewPeriodOf(request.query);
    return sendPage(reply, 200, overviewPage(signedIn, await readOverview(ctx, signedIn, request.id, period, ctx.now())));
  });

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
