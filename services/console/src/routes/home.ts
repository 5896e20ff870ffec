import { ApiError, type Bus } from '@voice/kit';
import { modeSchema } from '@voice/proto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { overviewPeriodOf, readOverview } from '../domain/overview.js';
import { switchMode, switchOrganization } from '../domain/sessions.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { signedInOf } from '../http/session.js';
import { modePath, switchReturnPaths } from '../views/layout.js';
import { overviewPage } from '../views/overview.js';

const switchForm = z.object({ org_id: z.string().min(1).max(64) });
const modeForm = z.object({ mode: modeSchema, back: z.string().max(200).optional() });

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

  // The "Test data" switch, on every page. Any member may: it changes only which data their session shows.
  // A mode other than live or test is a hand-made request: refused, the session unchanged.
  app.post(modePath.slice('/dashboard'.length), { config: { access: 'signed-in' } }, async (request, reply) => {
    const form = modeForm.safeParse(formOf(request.body));
    if (!form.success) throw new ApiError('invalid_request', 'Choose live or test data.', { param: 'mode' });
    await switchMode(ctx, signedInOf(request), form.data.mode);
    flash(request, reply, ctx.env, form.data.mode === 'test' ? 'test-mode-on' : 'test-mode-off');
    // Back to the section the switch was pressed on; anything else (an address of elsewhere) is the overview.
    const back = form.data.back && switchReturnPaths.has(form.data.back) ? form.data.back : '/dashboard';
    return reply.redirect(back, 303);
  });
}
