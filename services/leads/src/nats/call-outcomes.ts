import type { BackgroundWork } from '@voice/kit';
import type { LeadsDeps } from '../deps.js';
import { recordCallOutcome } from '../domain/leads.js';

/**
 * Consumes `call.completed` with a durable consumer, so calls that end while this service is down are
 * still applied when it comes back. The handler is idempotent (see recordCallOutcome); a throw retries. The
 * bus has checked the data against `call.completed`'s schema; an event that does not match never gets here.
 */
export async function consumeCallOutcomes(deps: LeadsDeps): Promise<BackgroundWork> {
  return deps.bus.consume({ durable: 'leads-call-outcomes', types: ['call.completed'] }, async (event) => {
    const call = event.data;
    if (!call.lead_id) return;
    await recordCallOutcome(deps, event.org_id, {
      call_id: call.call_id,
      lead_id: call.lead_id,
      outcome: call.outcome,
      ended_at: new Date(call.ended_at ?? event.created_at),
    });
  });
}
