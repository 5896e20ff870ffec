import type { Bus } from '@voice/kit';
import { testIdentity } from '@voice/kit/testing';
import { gatewayRpc } from '@voice/proto';

/**
 * The organization's console actions in the gateway's audit log (actor `user`), newest first, each as
 * `<user id> <method> <path> <status>`, read as one of its people: what a page's POST recorded.
 */
export async function consoleActions(gatewayBus: Bus, orgId: string, userId: string): Promise<string[]> {
  const audit = await gatewayBus.call(
    gatewayRpc.listAuditLog,
    { ...testIdentity(), org_id: orgId, key_id: userId, user_id: userId, scope: 'read' },
    { actor_type: 'user', limit: 100 },
  );
  return audit.data.map((record) => [record.key_id, record.method, record.path, record.status].join(' '));
}
