import type { BackgroundWork } from '@voice/kit';
import { planLimits } from '@voice/proto';
import type { WebhooksDeps } from '../deps.js';

/**
 * Webhooks follow the organization's plan: a move to a plan without webhooks (Lite) disables its enabled
 * endpoints with reason `plan`; a move back re-enables exactly those. The gateway publishes the change
 * durably, so a replica that was down applies it when it returns.
 */
export async function startPlanChanges(deps: WebhooksDeps): Promise<BackgroundWork> {
  return deps.bus.consume({ durable: 'webhooks-plan-changes', types: ['org.plan_changed'] }, async (event) => {
    if (planLimits[event.data.plan].webhooks) {
      await deps.prisma.endpoint.updateMany({
        where: { orgId: event.org_id, status: 'disabled', disabledReason: 'plan' },
        data: { status: 'enabled', disabledReason: null },
      });
    } else {
      await deps.prisma.endpoint.updateMany({
        where: { orgId: event.org_id, status: 'enabled' },
        data: { status: 'disabled', disabledReason: 'plan' },
      });
    }
  });
}
