import { ApiError } from '@voice/kit';
import { type Identity, planLimits } from '@voice/proto';

/** Webhooks are a Starter, Pro and Enterprise feature (the plan table in proto): other plans may read, never change. */
export function assertWebhooksPlan(identity: Identity): void {
  if (!planLimits[identity.plan].webhooks) {
    throw new ApiError('plan_required', 'Webhooks need the Starter, Pro or Enterprise plan; upgrade to create or change endpoints.');
  }
}
