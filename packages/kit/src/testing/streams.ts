import { jetstreamManager } from '@nats-io/jetstream';
import type { Bus } from '../nats.js';

/** How many events the bus's stream holds: a publish JetStream dropped as a duplicate adds none. */
export async function storedEventCount(bus: Bus): Promise<number> {
  // A hang limit, not nats.js's 5 s default: a test reads the count just after restarting its own NATS, and on a
  // loaded machine JetStream's first answers after a restart can take longer than that.
  const manager = await jetstreamManager(bus.connection, { timeout: 60_000 });
  return (await manager.streams.info(bus.streamName)).state.messages;
}
