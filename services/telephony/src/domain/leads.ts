import { ApiError, notFound } from '@voice/kit';
import { type Identity, leadsRpc } from '@voice/proto';
import type { TelephonyContext } from './context.js';

/**
 * A call or message may point only at a lead of the caller's organization. Leads are the leads service's,
 * so it is asked (under the caller's identity, which scopes the lookup to that organization) rather than
 * trusting the id: another organization's lead is as unknown as one that never existed. Leads not
 * answering is `unavailable`, never a pass.
 */
export async function assertOwnLead(context: TelephonyContext, identity: Identity, leadId: string | undefined): Promise<void> {
  if (leadId === undefined) return;
  try {
    await context.bus.call(leadsRpc.getLead, identity, { id: leadId });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') throw notFound('lead', 'lead_id');
    throw error;
  }
}
