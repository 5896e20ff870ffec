import { jetstreamManager } from '@nats-io/jetstream';
import type { Bus } from '../nats.js';

/** How many events the bus's stream holds: a publish JetStream dropped as a duplicate adds none. */
export async function storedEventCount(bus: Bus): Promise<number> {
  const manager = await jetstreamManager(bus.connection);
  return (await manager.streams.info(bus.streamName)).state.messages;
}
