import { commitWithEvents, type PendingEvents } from '@voice/kit';
import type { LeadsDeps } from '../deps.js';
import type { Prisma } from '../generated/prisma/client.js';

export type LeadsTx = Prisma.TransactionClient;

/**
 * Runs a change in one transaction with the events it records (the outbox), so a committed change always
 * gets its events out and the request never waits for NATS; the relay publishes them. A given event id
 * makes a repeated cause a duplicate that JetStream drops.
 */
export function withEvents<T>(deps: LeadsDeps, change: (tx: LeadsTx, events: PendingEvents) => Promise<T>): Promise<T> {
  return commitWithEvents((work) => deps.prisma.$transaction(work), deps.outbox, change);
}
