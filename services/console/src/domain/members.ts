import { ApiError, type Bus } from '@voice/kit';
import type { Role } from '../generated/prisma/enums.js';
import { deleteMembership, findOrgMembership, lockOwnerIds, setMembershipRole } from '../store/memberships.js';
import type { ConsoleContext } from './context.js';
import { type CreatedInvitation, createInvitation, mailInvitation } from './invitations.js';
import { revokeGrantsOfPerson } from './oauth-grants.js';
import { organizationLabel } from './organizations.js';
import { canChangeRole, canManage } from './roles.js';
import type { SignedIn } from './sessions.js';

const lastOwnerMessage = 'An organization needs an owner: make someone else owner first.';

function requireManager(actor: SignedIn): void {
  if (!canManage(actor.role)) throw new ApiError('forbidden', 'Only owners and admins can change members.');
}

/** Invites someone to the actor's current organization (the link is e-mailed too); only an owner may invite an owner. */
export async function inviteMember(ctx: ConsoleContext, actor: SignedIn, input: { email: string; role: Role }): Promise<CreatedInvitation> {
  requireManager(actor);
  if (input.role === 'owner' && actor.role !== 'owner') throw new ApiError('forbidden', 'Only an owner can invite an owner.');
  const invitation = await createInvitation(ctx, { orgId: actor.orgId, email: input.email, role: input.role, invitedBy: actor.user.id });
  void mailInvitation(ctx.mailer, invitation, { organizationName: organizationLabel(actor), invitedBy: actor.user.name });
  return invitation;
}

type MembersContext = ConsoleContext & { bus: Bus };

/** Room for the gateway's answer (its NATS request times out at 5 s) inside the transaction. */
const transactionWithGateway = { timeout: 15_000 };

/**
 * The OAuth grants a person made act for them (domain/oauth-grants.ts), so a change of their standing
 * reaches the gateway before it is committed here: their grants are revoked in the same transaction, after
 * the checks and before the change. If the gateway does not answer, nothing changes and the manager tries
 * again; a grant made meanwhile is caught at its next token request, which checks the grantor's membership.
 */

/**
 * Changes a member's role in the actor's current organization (an id from another organization is not
 * found). The owners are locked first, so the last owner cannot be demoted even by two requests at once.
 * Made a member, the person may grant read only: their grants that may write are revoked (`role_changed`);
 * grants within the new role stay.
 */
export async function changeMemberRole(
  ctx: MembersContext,
  actor: SignedIn,
  membershipId: string,
  role: Role,
  requestId: string,
): Promise<void> {
  requireManager(actor);
  await ctx.prisma.$transaction(async (tx) => {
    const owners = await lockOwnerIds(tx, actor.orgId);
    const target = await findOrgMembership(tx, actor.orgId, membershipId);
    if (!target) throw new ApiError('not_found', 'No such member in this organization.');
    if (!canChangeRole(actor.role, target.role, role))
      throw new ApiError('forbidden', 'Only an owner can grant or take away the owner role.');
    if (target.role === 'owner' && role !== 'owner' && owners.length <= 1) throw new ApiError('conflict', lastOwnerMessage);
    if (canManage(target.role) && !canManage(role)) {
      await revokeGrantsOfPerson(ctx, actor, requestId, { userId: target.userId, reason: 'role_changed', above: 'read' });
    }
    await setMembershipRole(tx, actor.orgId, membershipId, role);
  }, transactionWithGateway);
}

/** Removes a member from the actor's current organization, and revokes every grant they made there; never the last owner. */
export async function removeMember(ctx: MembersContext, actor: SignedIn, membershipId: string, requestId: string): Promise<void> {
  requireManager(actor);
  await ctx.prisma.$transaction(async (tx) => {
    const owners = await lockOwnerIds(tx, actor.orgId);
    const target = await findOrgMembership(tx, actor.orgId, membershipId);
    if (!target) throw new ApiError('not_found', 'No such member in this organization.');
    if (target.role === 'owner' && actor.role !== 'owner') throw new ApiError('forbidden', 'Only an owner can remove an owner.');
    if (target.role === 'owner' && owners.length <= 1) throw new ApiError('conflict', lastOwnerMessage);
    await revokeGrantsOfPerson(ctx, actor, requestId, { userId: target.userId, reason: 'member_removed', above: null });
    await deleteMembership(tx, actor.orgId, membershipId);
  }, transactionWithGateway);
}
