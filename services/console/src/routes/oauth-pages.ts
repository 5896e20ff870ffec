import { ApiError, type Bus } from '@voice/kit';
import { isTestOnlyToolset, modeSchema, parseMcpPath } from '@voice/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import {
  type AuthorizationParams,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  clientRedirect,
  issueCode,
  RedirectableError,
} from '../domain/oauth-authorization.js';
import { OAuthError } from '../domain/oauth-errors.js';
import { createGrant, grantableOrganizations, grantsFor, inOrganization } from '../domain/oauth-grants.js';
import { seeOrganizations } from '../domain/organizations.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { contentSecurityPolicy, sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { errorPage } from '../views/error.js';
import { connectedAppsPage, connectedAppsPath, consentPage, revokeGrantConfirmPage } from '../views/oauth.js';

type PagesContext = ConsoleContext & { bus: Bus; redis: Redis };

const quotaSchema = z.coerce.number().int().min(1).max(1_000_000_000);
const grantParams = z.object({ id: z.string().min(1).max(64) });
/** Gateway refusals of a grant shown on the consent page, above the form, rather than as an error page. */
const formErrors = new Set(['key_limit_reached', 'forbidden_scope', 'plan_required', 'invalid_request']);

function stringsOf(source: unknown): AuthorizationParams {
  const fields = source && typeof source === 'object' ? (source as Record<string, unknown>) : {};
  return Object.fromEntries(Object.entries(fields).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])));
}

/**
 * The authorization page (the consent page) and Connected apps. A request whose client or redirect URI is
 * wrong gets an error page and goes nowhere; other faults go back to the client's redirect URI as RFC 6749
 * errors. The form may only post here, and only redirect to the checked redirect URI's origin.
 */
export function oauthPageRoutes(app: FastifyInstance, ctx: PagesContext): void {
  async function checked(request: FastifyRequest, reply: FastifyReply, params: AuthorizationParams) {
    try {
      return await checkAuthorizationRequest(ctx, params);
    } catch (error) {
      if (error instanceof RedirectableError) {
        await reply.redirect(
          clientRedirect(ctx, error.redirectUri, error.state, { error: error.error, error_description: error.description }),
          303,
        );
        return undefined;
      }
      if (error instanceof OAuthError) {
        await sendPage(reply, 400, errorPage(400, `This sign-in request cannot be used: ${error.description}`, request.signedIn));
        return undefined;
      }
      throw error;
    }
  }

  /** Whether an MCP URL names a toolset served to test credentials only (`/api/mcp/x/testing`): a live grant there could do nothing. */
  function namesTestOnlyToolset(resource: string): boolean {
    const path = new URL(resource).pathname;
    const parsed = parseMcpPath(path);
    return parsed?.ok === true && path.includes('/x/') && parsed.selection.toolsets.some(isTestOnlyToolset);
  }

  async function showConsent(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    authorization: AuthorizationRequest,
    params: AuthorizationParams,
    extra: { chosen?: { orgId?: string; scope?: string; quota?: string; mode?: string }; error?: string } = {},
  ) {
    const signedIn = signedInOf(request);
    // The page is public (its route runs before sign-in too), so the session check has not named the
    // person's organizations yet: the header and the choice name them, not their ids.
    signedIn.organizations ??= await seeOrganizations(ctx, signedIn, request.id);
    const organizations = await grantableOrganizations(ctx, signedIn, request.id);
    void reply.header('content-security-policy', contentSecurityPolicy(`'self' ${new URL(authorization.redirectUri).origin}`));
    return sendPage(reply, status, consentPage(signedIn, { request: authorization, params, organizations, ...extra }));
  }

  app.get('/oauth/authorize', { config: { access: 'public' } }, async (request, reply) => {
    const params = stringsOf(request.query);
    const authorization = await checked(request, reply, params);
    if (!authorization) return reply;
    if (!request.signedIn) return reply.redirect(`/dashboard/sign-in?next=${encodeURIComponent(request.url)}`, 303);
    return showConsent(request, reply, 200, authorization, params);
  });

  app.post('/oauth/authorize', { config: { access: 'signed-in' } }, async (request, reply) => {
    const form = formOf(request.body);
    // The client's request as it came (its scope carried as requested_scope), checked again from scratch.
    const { requested_scope: requestedScope, scope: _chosen, ...rest } = stringsOf(form);
    const params = { ...rest, ...(requestedScope === undefined ? {} : { scope: requestedScope }) };
    const authorization = await checked(request, reply, params);
    if (!authorization) return reply;
    const back = (answer: Record<string, string>) =>
      reply.redirect(clientRedirect(ctx, authorization.redirectUri, authorization.state, answer), 303);
    if (form.decision !== 'approve') return back({ error: 'access_denied', error_description: 'The person denied the request.' });
    const chosen = { orgId: form.org_id, scope: form.scope, quota: form.monthly_quota, mode: form.mode };
    const again = (status: number, error: string) => showConsent(request, reply, status, authorization, params, { chosen, error });
    // Live unless the person chose test data: a form from before the choice existed sends no mode.
    const mode = modeSchema.safeParse(form.mode ?? 'live');
    if (!mode.success) return again(400, 'Choose live data or test data.');
    if (mode.data === 'live' && namesTestOnlyToolset(authorization.resource)) {
      return again(400, 'This app asked for the testing toolset, which works with test data only: choose test data.');
    }
    // In test data the grant is the test twin's (the gateway takes the organization from the identity).
    const person = inOrganization(signedInOf(request), form.org_id ?? '', mode.data);
    const organization = (await grantableOrganizations(ctx, person, request.id)).find((org) => org.orgId === person.orgId);
    const quota = quotaSchema.safeParse(form.monthly_quota);
    if (!quota.success) return again(400, 'Enter the monthly quota as a whole number from 1 to 1,000,000,000.');
    const scope = form.scope === 'read-write' ? 'read-write' : form.scope === 'read' ? 'read' : undefined;
    if (!scope) return again(400, 'Choose read or read and write.');
    if (scope === 'read-write' && (organization?.maxScope !== 'read-write' || authorization.requestedScope !== 'read-write')) {
      return again(403, 'In this organization you can grant read access only.');
    }
    let grant: Awaited<ReturnType<typeof createGrant>>;
    try {
      grant = await createGrant(ctx, person, request.id, {
        client_id: authorization.client.id,
        client_name: authorization.client.name,
        scope,
        resource: authorization.resource,
        monthly_quota: quota.data,
      });
    } catch (error) {
      if (!(error instanceof ApiError && formErrors.has(error.code))) throw error;
      const message =
        error.code === 'key_limit_reached'
          ? `${error.message} An app counts as an API key: revoke a key or an app, or change the plan.`
          : error.message;
      return again(error.status, message);
    }
    const code = await issueCode(ctx, authorization, { grantId: grant.id, orgId: grant.org_id, userId: person.user.id });
    return back({ code });
  });

  app.get('/settings/connected-apps', { config: { access: 'signed-in' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const grants = await (await grantsFor(ctx, signedIn, request.id)).list();
    const ids = [...new Set(grants.map((grant) => grant.granted_by))];
    const users = await ctx.prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
    return sendPage(reply, 200, connectedAppsPage(signedIn, { grants, names: new Map(users.map((user) => [user.id, user.name])) }));
  });

  // A page of its own confirms, so revoking needs no JavaScript; members get neither the page nor the POST.
  app.get('/settings/connected-apps/:id/revoke', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(grantParams, request.params);
    const signedIn = signedInOf(request);
    const grant = (await (await grantsFor(ctx, signedIn, request.id)).list()).find((candidate) => candidate.id === id);
    if (!grant) throw new ApiError('not_found', 'There is no such app in this organization.');
    return sendPage(reply, 200, revokeGrantConfirmPage(signedIn, grant));
  });

  app.post('/settings/connected-apps/:id/revoke', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(grantParams, request.params);
    const grants = await grantsFor(ctx, signedInOf(request), request.id);
    if (!(await grants.list()).some((candidate) => candidate.id === id))
      throw new ApiError('not_found', 'There is no such app in this organization.');
    await grants.revoke(id);
    flash(request, reply, ctx.env, 'app-revoked');
    return reply.redirect(connectedAppsPath, 303);
  });
}
