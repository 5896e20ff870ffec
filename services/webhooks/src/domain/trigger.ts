import { newEvent } from '@voice/kit';
import { eventExample, type Identity, type SubscribableEventType, type TriggeredEvent } from '@voice/proto';
import type { WebhooksDeps } from '../deps.js';
import { fanOut } from '../nats/fanout.js';
import { eventDeliveries } from '../store/deliveries.js';
import { assertWebhooksPlan } from './plan.js';
import { toDelivery } from './records.js';

/**
 * Test mode's helper (`triggerEvent`, testOnly: kit answers a live identity 404 before this runs): one event
 * of the type with its example data (proto's `eventExamples`), in an envelope of the caller's test twin
 * (`livemode: false`), fanned out exactly as an event from the stream is (stored, one delivery per enabled
 * endpoint of the twin subscribed to the type, signed, retried, in the delivery log). It is not published on
 * NATS: the other services would act on a call or a lead that does not exist.
 */
export async function triggerTestEvent(deps: WebhooksDeps, identity: Identity, type: SubscribableEventType): Promise<TriggeredEvent> {
  assertWebhooksPlan(identity);
  const event = newEvent(type, identity.org_id, eventExample(type));
  await fanOut(deps, event);
  const deliveries = await eventDeliveries(deps.prisma, identity.org_id, event.id);
  return { object: 'triggered_event', event, deliveries: deliveries.map(toDelivery) };
}
