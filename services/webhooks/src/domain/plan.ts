import { ApiError } from '@voice/kit';
import { type Identity, planLimits, webhooksPlanMessage } from '@voice/proto';

/** Webhooks are a Starter, Pro and Enterprise feature (the plan table in proto): other plans may read, never change. */
export function assertWebhooksPlan(identity: Identity): void {
  if (!planLimits[identity.plan].webhooks) {
    throw new ApiError('plan_required', webhooksPlanMessage);
  }
}
