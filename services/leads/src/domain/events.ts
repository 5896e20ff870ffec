import { newId } from '@voice/kit';
import type { EventType } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';

/**
 * Publishes a domain event after the change it describes is committed, waiting for JetStream's
 * acknowledgement; a given `id` makes a repeated publish a duplicate that JetStream drops.
 */
export async function publishEvent(
  deps: LeadsDeps,
  type: EventType,
  orgId: string,
  data: Record<string, unknown>,
  id?: string,
): Promise<void> {
  // Called after the change is committed: failing the request now would make the client retry a change
  // that already happened (a second lead, say). So retry briefly under one event id (JetStream drops a
  // repeat of an id it already stored), then log the loss instead of throwing. An outbox table would
  // close that last gap; see the README.
  const eventId = id ?? newId('event');
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.bus.publish(type, orgId, data, { id: eventId });
      return;
    } catch (error) {
      if (attempt >= 3) {
        deps.logger.error({ err: error, type, event_id: eventId, org_id: orgId }, 'event not published after the change was committed');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
