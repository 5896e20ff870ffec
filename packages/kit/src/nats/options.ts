import type { Logger } from 'pino';
import type { EventSchemas } from '../dead-letters.js';

export interface BusOptions {
  url: string;
  /** Connection name, shown in NATS monitoring: the deployable's name. */
  name: string;
  /** Prefix for subjects, the stream and consumers; empty in production, unique per test. */
  namespace: string;
  logger: Logger;
  /**
   * INTERNAL_SIGNING_SECRET: every request this bus sends is signed with it, and every request it serves
   * must be, so a NATS client without it can call nothing.
   */
  secret: string;
  /**
   * A request's deadline: how long it may wait for a reply, riding out a reconnect or a responder that
   * is not subscribed yet, before it fails as `unavailable`.
   */
  requestTimeoutMs?: number;
  /**
   * JETSTREAM_REPLICAS: copies of the events stream (and of its consumers, which follow the stream) the
   * servers keep; 1 by default, 3 on a cluster, so that losing one server loses nothing.
   */
  streamReplicas?: number;
  /** How long the first connection may take, attempts that time out retried, before connecting fails. */
  startupTimeoutMs?: number;
  /**
   * The event types this process reads and their `data` schemas: proto's `eventDataSchemas`, the version it
   * was built with. A test gives an older or a newer version's, to run two versions side by side.
   */
  eventSchemas?: EventSchemas;
}
