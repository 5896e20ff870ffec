import type { Role } from '../domain/roles.js';
import { type LiveEvent, roleMaySee } from './events.js';

/** One open event stream: a person's page, in the organization their session had chosen when it opened. */
export interface LiveClient {
  orgId: string;
  role: Role;
  sessionHash: string;
  send(event: LiveEvent): void;
  /** Ends the stream (shutdown); the browser reconnects to another replica or to this one restarted. */
  end(): void;
}

export interface LiveLimits {
  /** Open streams per process: each holds a socket and a little memory. */
  perProcess: number;
  /** Open streams per session: a person's tabs (a browser opens at most six connections per host over HTTP/1.1). */
  perSession: number;
}

export type Admission = 'admitted' | 'process-full' | 'session-full';

/**
 * The process's open streams, indexed by organization: an event is handed only to the streams of its own
 * organization (the index is the isolation), then to those whose role may see it.
 */
export class LiveHub {
  private readonly byOrg = new Map<string, Set<LiveClient>>();
  private readonly perSession = new Map<string, number>();
  private open = 0;

  constructor(private readonly limits: LiveLimits) {}

  get size(): number {
    return this.open;
  }

  admit(client: LiveClient): Admission {
    if (this.open >= this.limits.perProcess) return 'process-full';
    const ofSession = this.perSession.get(client.sessionHash) ?? 0;
    if (ofSession >= this.limits.perSession) return 'session-full';
    this.perSession.set(client.sessionHash, ofSession + 1);
    const clients = this.byOrg.get(client.orgId) ?? new Set<LiveClient>();
    this.byOrg.set(client.orgId, clients);
    clients.add(client);
    this.open += 1;
    return 'admitted';
  }

  /** Forgets a stream that ended; safe to call more than once. */
  remove(client: LiveClient): void {
    const clients = this.byOrg.get(client.orgId);
    if (!clients?.delete(client)) return;
    if (clients.size === 0) this.byOrg.delete(client.orgId);
    const ofSession = (this.perSession.get(client.sessionHash) ?? 1) - 1;
    if (ofSession <= 0) this.perSession.delete(client.sessionHash);
    else this.perSession.set(client.sessionHash, ofSession);
    this.open -= 1;
  }

  deliver(orgId: string, event: LiveEvent): void {
    for (const client of this.byOrg.get(orgId) ?? []) if (roleMaySee(client.role, event)) client.send(event);
  }

  /** Ends every stream: at shutdown, so closing the server does not wait for streams that never end. */
  endAll(): void {
    for (const clients of [...this.byOrg.values()]) for (const client of [...clients]) client.end();
  }
}

/** The last `size` event ids, to drop a repeat of one already delivered. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly size: number) {}

  /** False when the id was seen lately. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    // A Set iterates in insertion order: the first is the oldest.
    if (this.ids.size > this.size) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }
}
