import type { EventType } from '@voice/proto';
import type { LeadsDeps } from '../deps.js';

/**
 * Publishes a domain event after the change it describes is committed. Publishing waits for JetStream's
 * acknowledgement, so a caller that got a success also knows the event is stored; a given `id` makes a
 * retried publish a duplicate that JetStream drops.
 */
export async function publishEvent(
  deps: LeadsDeps,
  type: EventType,
  orgId: string,
  data: Record<string, unknown>,
  id?: string,
): Promise<void> {
  await deps.bus.publish(type, orgId, data, id === undefined ? {} : { id });
}
