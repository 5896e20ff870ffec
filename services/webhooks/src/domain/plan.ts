import { ApiError } from '@voice/kit';
import type { Identity } from '@voice/proto';

/** Webhooks are a Starter, Pro and Enterprise feature: a Lite organization may read but never change them. */
export function assertWebhooksPlan(identity: Identity): void {
  if (identity.plan === 'lite') {
    throw new ApiError('plan_required', 'Webhooks need the Starter, Pro or Enterprise plan; upgrade to create or change endpoints.');
  }
}
