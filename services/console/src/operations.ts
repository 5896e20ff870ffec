// What the console answers over NATS (`consoleRpc`; it has no REST operations, its pages are plain routes):
// the people other services need by role. The organization is always the identity's.
import type { OperationHandlers } from '@voice/kit';
import { type consoleRpc, liveOrgOf } from '@voice/proto';
import type { ConsoleDeps } from './deps.js';
import { listOrgApprovers } from './store/memberships.js';

export function consoleOperations(deps: ConsoleDeps): OperationHandlers<typeof consoleRpc> {
  return {
    // The mcp service e-mails an approval request to them.
    listApprovers: async (_input, identity) => {
      // A test twin's approvals go to the live organization's approvers: memberships are the live one's.
      const memberships = await listOrgApprovers(deps.prisma, liveOrgOf(identity.org_id));
      return {
        data: memberships.map((membership) => ({
          user_id: membership.user.id,
          name: membership.user.name,
          email: membership.user.email,
          // The query selects these two roles only: the ones that may decide an approval (canManage).
          role: membership.role as 'owner' | 'admin',
        })),
      };
    },
  };
}
