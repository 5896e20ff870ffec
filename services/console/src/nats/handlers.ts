import { consoleRpc } from '@voice/proto';
import type { ConsoleDeps } from '../deps.js';
import { listOrgApprovers } from '../store/memberships.js';

/**
 * What the console answers over NATS: the people other services need by role (the mcp service e-mails an
 * approval request to them). The organization is always the identity's; `bus.serve` checks the scope.
 */
export function serveConsoleRpc(deps: ConsoleDeps): void {
  deps.bus.serve(consoleRpc.listApprovers, async (_input, identity) => {
    const memberships = await listOrgApprovers(deps.prisma, identity.org_id);
    return {
      data: memberships.map((membership) => ({
        user_id: membership.user.id,
        name: membership.user.name,
        email: membership.user.email,
        // The query selects these two roles only: the ones that may decide an approval (canManage).
        role: membership.role as 'owner' | 'admin',
      })),
    };
  });
}
