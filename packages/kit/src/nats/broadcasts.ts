import type { BusConnection } from './connection.js';
import { jsonPayload, parsePayload } from './payload.js';

/** Plain publish/subscribe: heard by every process listening at the time, not stored. */
export class Broadcasts {
  constructor(private readonly bus: BusConnection) {}

  broadcast(subject: string, data: unknown): void {
    this.bus.connection.publish(this.bus.subject(subject), jsonPayload(data));
  }

  listen(subject: string, handler: (data: unknown) => void): void {
    this.bus.connection.subscribe(this.bus.subject(subject), {
      callback: (error, message) => {
        if (error) return;
        try {
          handler(parsePayload(message.data));
        } catch (handlerError) {
          this.bus.logger.warn({ err: handlerError, subject }, 'broadcast handler failed');
        }
      },
    });
  }
}
