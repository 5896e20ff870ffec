import { ApiError, type Bus } from '@voice/kit';
import { rotationGraceSeconds } from '@voice/proto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { creatorNames, keysFor, type OrganizationKeys } from '../domain/api-keys.js';
import type { ConsoleContext } from '../domain/context.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { apiKeysPage, limitOf, newKeyPage, revokeConfirmPage } from '../views/api-keys.js';

const createForm = z.object({
  name: z.string().trim().min(1, 'Give the key a name.').max(100, 'The name is at most 100 characters.'),
  scope: z.enum(['read', 'read-write'], 'Choose read or read-write.'),
  monthly_quota: z.coerce
    .number('Enter the monthly quota as a number.')
    .int()
    .min(1, 'The monthly quota is at least 1.')
    .max(1_000_000_000),
  expires_on: z.union([z.literal(''), z.iso.date('Enter the expiry as a date.')]).optional(),
});
const rotateForm = z.object({ grace_seconds: z.coerce.number().pipe(z.literal(rotationGraceSeconds)) });
const listQuery = z.object({ cursor: z.string().min(1).max(512).optional() });
const keyParams = z.object({ id: z.string().min(1).max(64) });

/** Errors the gateway gives for a refused creation, shown on the page above the form rather than as an error page. */
const formErrors = new Set(['invalid_request', 'plan_required', 'key_limit_reached']);

/**
 * The API keys page the public spec names. Keys are the gateway's: every action is a NATS call made for
 * the signed-in person in their current organization. A raw key is only ever in the body of the POST's
 * answer (no redirect carrying it, no log line, `no-store`).
 */
export function apiKeyRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const gatewayFor = (request: FastifyRequest) => keysFor(ctx, signedInOf(request), request.id);
  const view = async (keys: OrganizationKeys, cursor?: string) => {
    const page = await keys.page(cursor);
    return {
      organization: keys.organization,
      keys: page.data,
      nextCursor: page.next_cursor,
      olderPage: cursor !== undefined,
      creators: await creatorNames(ctx.prisma, page.data),
      now: ctx.now(),
    };
  };

  app.get('/settings/api', { config: { access: 'signed-in' } }, async (request, reply) => {
    const query = listQuery.safeParse(request.query ?? {});
    if (!query.success) throw new ApiError('invalid_cursor', 'The cursor is malformed; start again without it.', { param: 'cursor' });
    const { cursor } = query.data;
    return sendPage(reply, 200, apiKeysPage(signedInOf(request), await view(await gatewayFor(request), cursor)));
  });

  app.post('/settings/api/keys', { config: { access: 'manager' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const keys = await gatewayFor(request);
    const form = createForm.safeParse(formOf(request.body));
    if (!form.success) {
      const issue = form.error.issues[0];
      return sendPage(
        reply,
        400,
        apiKeysPage(signedIn, await view(keys), { error: issue?.message ?? 'Check the form.', param: issue?.path[0]?.toString() }),
      );
    }
    const { expires_on, ...input } = form.data;
    try {
      const created = await keys.create({ ...input, ...(expires_on ? { expires_at: `${expires_on}T00:00:00.000Z` } : {}) });
      return sendPage(
        reply,
        201,
        newKeyPage(signedIn, { heading: 'Key created', key: created.key, record: created.record, publicBaseUrl: ctx.env.PUBLIC_BASE_URL }),
      );
    } catch (error) {
      if (!(error instanceof ApiError && formErrors.has(error.code))) throw error;
      const message = error.code === 'key_limit_reached' ? limitOf(keys.organization).limitMessage : error.message;
      return sendPage(reply, error.status, apiKeysPage(signedIn, await view(keys), { error: message, param: error.param }));
    }
  });

  app.post('/settings/api/keys/:id/rotate', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(keyParams, request.params);
    const form = rotateForm.safeParse(formOf(request.body));
    if (!form.success)
      throw new ApiError('invalid_request', 'Choose a grace period: now, 1 hour, 24 hours or 7 days.', { param: 'grace_seconds' });
    const rotated = await (await gatewayFor(request)).rotate(id, form.data.grace_seconds);
    const until = rotated.replaces.expires_at ? `${rotated.replaces.expires_at.slice(0, 16).replace('T', ' ')} UTC` : 'now';
    return sendPage(
      reply,
      201,
      newKeyPage(signedInOf(request), {
        heading: 'Key rotated',
        key: rotated.key,
        record: rotated.record,
        publicBaseUrl: ctx.env.PUBLIC_BASE_URL,
        note: `The old key ${rotated.replaces.display_prefix}${rotated.replaces.display_suffix} works until ${until}.`,
      }),
    );
  });

  // The confirmation is a page of its own, so revoking needs no JavaScript; members get no such page.
  app.get('/settings/api/keys/:id/revoke', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(keyParams, request.params);
    const signedIn = signedInOf(request);
    const keys = await gatewayFor(request);
    return sendPage(reply, 200, revokeConfirmPage(signedIn, await keys.get(id)));
  });

  app.post('/settings/api/keys/:id/revoke', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(keyParams, request.params);
    await (await gatewayFor(request)).revoke(id);
    flash(request, reply, ctx.env, 'key-revoked');
    return reply.redirect('/dashboard/settings/api', 303);
  });
}
