import { ApiError, type Bus } from '@voice/kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleContext } from '../domain/context.js';
import { changeMemberRole, inviteMember, removeMember } from '../domain/members.js';
import { grantsFor } from '../domain/oauth-grants.js';
import { roles } from '../domain/roles.js';
import { flash } from '../http/flash.js';
import { formOf } from '../http/forms.js';
import { sendPage } from '../http/pages.js';
import { paramsOf } from '../http/params.js';
import { signedInOf } from '../http/session.js';
import { listPendingInvitations } from '../store/invitations.js';
import { findOrgMembership, listOrgMembers } from '../store/memberships.js';
import { invitationCreatedPage, membersPage, removeMemberConfirmPage } from '../views/members.js';

const roleSchema = z.enum(roles as ['owner', 'admin', 'member']);
const inviteForm = z.object({ email: z.email('Enter an e-mail address.').max(320), role: roleSchema });
const roleForm = z.object({ role: roleSchema });
const membershipParams = z.object({ id: z.string().min(1).max(64) });

/**
 * Members of the session's current organization: every member sees them, owners and admins change them.
 * Removing someone is confirmed on a page of its own, which names the apps they connected (revoked with
 * the removal).
 */
export function memberRoutes(app: FastifyInstance, ctx: ConsoleContext & { bus: Bus }): void {
  const view = async (orgId: string) => ({
    members: await listOrgMembers(ctx.prisma, orgId),
    invitations: await listPendingInvitations(ctx.prisma, orgId, ctx.now()),
  });

  app.get('/members', { config: { access: 'signed-in' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    return sendPage(reply, 200, membersPage(signedIn, await view(signedIn.orgId)));
  });

  app.post('/members/invitations', { config: { access: 'manager' } }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const form = inviteForm.safeParse(formOf(request.body));
    if (!form.success) {
      const error = form.error.issues[0]?.message ?? 'Check the form.';
      return sendPage(reply, 400, membersPage(signedIn, await view(signedIn.orgId), { error }));
    }
    return sendPage(reply, 201, invitationCreatedPage(signedIn, await inviteMember(ctx, signedIn, form.data)));
  });

  app.post('/members/:id/role', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(membershipParams, request.params);
    const form = roleForm.safeParse(formOf(request.body));
    if (!form.success) throw new ApiError('invalid_request', 'Choose owner, admin or member.', { param: 'role' });
    await changeMemberRole(ctx, signedInOf(request), id, form.data.role, request.id);
    flash(request, reply, ctx.env, 'role-changed');
    return reply.redirect('/dashboard/members', 303);
  });

  app.get('/members/:id/remove', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(membershipParams, request.params);
    const signedIn = signedInOf(request);
    const membership = await findOrgMembership(ctx.prisma, signedIn.orgId, id);
    if (!membership) throw new ApiError('not_found', 'No such member in this organization.');
    const user = await ctx.prisma.user.findUniqueOrThrow({
      where: { id: membership.userId },
      select: { id: true, name: true, email: true },
    });
    const grants = await (await grantsFor(ctx, signedIn, request.id)).list();
    const apps = grants.filter((grant) => grant.granted_by === user.id && grant.status === 'active');
    return sendPage(reply, 200, removeMemberConfirmPage(signedIn, { membershipId: membership.id, user, apps }));
  });

  app.post('/members/:id/remove', { config: { access: 'manager' } }, async (request, reply) => {
    const { id } = paramsOf(membershipParams, request.params);
    await removeMember(ctx, signedInOf(request), id, request.id);
    flash(request, reply, ctx.env, 'member-removed');
    return reply.redirect('/dashboard/members', 303);
  });
}
