import { jetstreamManager } from '@nats-io/jetstream';
import type { Bus } from '../nats.js';

/** How many events the bus's stream holds: a publish JetStream dropped as a duplicate adds none. */
export async function storedEventCount(bus: Bus): Promise<number> {
  // A test reads the count just after restarting its own NATS. nats.js drops a request made while its connection
  // is down (the reader's may reconnect later than the writer's), so it waits for the reconnect as Bus.call does;
  // then a hang limit rather than nats.js's 5 s default, which a loaded machine's first answers can exceed.
  await bus.untilConnected();
  const manager = await jetstreamManager(bus.connection, { timeout: 60_000 });
  return (await manager.streams.info(bus.streamName)).state.messages;
}
