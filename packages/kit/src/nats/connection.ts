import { type NatsConnection, TimeoutError } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { withDeadline } from '../deadline.js';
import type { BusOptions } from './options.js';
import { natsServer } from './server-url.js';

/**
 * The one NATS connection of a process as the bus's parts share it: who it is (the deployable's name, on
 * spans), its subjects inside the bus's namespace, and whether it is up or waiting for a reconnect.
 */
export class BusConnection {
  readonly logger: Logger;
  /** The deployable's name (`BusOptions.name`), on its spans. */
  readonly name: string;
  readonly namespace: string;
  /** Resolved while the connection is up; while it reconnects, a promise resolved by the reconnect. */
  private connected: Promise<void> = Promise.resolve();

  private constructor(
    readonly connection: NatsConnection,
    options: Pick<BusOptions, 'name' | 'namespace' | 'logger'>,
  ) {
    this.logger = options.logger;
    this.name = options.name;
    this.namespace = options.namespace;
  }

  static async open(options: BusOptions): Promise<BusConnection> {
    const deadline = Date.now() + (options.startupTimeoutMs ?? 15_000);
    const attempt = () =>
      connect({
        ...natsServer(options.url),
        name: options.name,
        // Keep reconnecting forever: a NATS restart must not need a pod restart (readiness reports it meanwhile).
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        timeout: 3_000,
        // No stack captured at every request for a timeout that may never come: a failed call becomes an
        // ApiError('unavailable') with its cause, and the stack was a measurable share of an RPC's CPU.
        noAsyncTraces: true,
      });
    let connection: NatsConnection;
    for (;;) {
      try {
        connection = await attempt();
        break;
      } catch (error) {
        // A process busy starting up (or a loaded machine) can miss one handshake's deadline; a refused
        // or unauthorised connection fails at once, and so does the last attempt before the deadline.
        if (!(error instanceof TimeoutError) || Date.now() + 3_000 > deadline) throw error;
      }
    }
    const opened = new BusConnection(connection, options);
    void opened.watchStatus();
    return opened;
  }

  private async watchStatus(): Promise<void> {
    let reconnected: (() => void) | undefined;
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        this.logger.warn({ nats: status.type }, `nats ${status.type}`);
      }
      if (status.type === 'disconnect' && !reconnected) {
        this.connected = new Promise((resolve) => {
          reconnected = resolve;
        });
      } else if (status.type === 'reconnect') {
        reconnected?.();
        reconnected = undefined;
      }
    }
    // Closed: a request still waiting for the reconnect goes on, and fails as the connection is closed.
    reconnected?.();
  }

  /** A subject inside this bus's namespace. */
  subject(name: string): string {
    return this.namespace ? `${this.namespace}.${name}` : name;
  }

  /**
   * A span's attributes for one NATS message (OpenTelemetry's messaging conventions), with this deployable's
   * name; `more`: the operation's own (a consumer group, a message id).
   */
  messagingAttributes(destination: string, operation: 'send' | 'process', more: Record<string, string> = {}): Record<string, string> {
    return {
      'messaging.system': 'nats',
      'messaging.destination.name': destination,
      'messaging.operation.type': operation,
      ...more,
      'voice.service': this.name,
    };
  }

  /** A durable consumer's name inside this bus's namespace. */
  durableName(name: string): string {
    return this.namespace ? `${this.namespace}_${name}` : name;
  }

  /** Resolves once the connection is up: at once, or after the reconnect under way. */
  untilConnected(): Promise<void> {
    return this.connected;
  }

  /** Waits until the server has seen everything this connection sent so far. */
  async flush(): Promise<void> {
    await this.connection.flush();
  }

  /** Round trip to the server, bounded. */
  async ping(timeoutMs: number): Promise<void> {
    if (this.connection.isClosed()) throw new Error('nats connection closed');
    await withDeadline(this.connection.rtt(), timeoutMs, 'nats did not answer');
  }

  /** Lets in-flight requests finish, then closes (nothing to do once closed). */
  async drain(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}
