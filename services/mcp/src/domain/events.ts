import { commitWithEvents, type PendingEvents } from '@voice/kit';
import type { McpDeps } from '../deps.js';
import type { Prisma } from '../generated/prisma/client.js';

export type McpTx = Prisma.TransactionClient;

/**
 * Runs a change in one transaction with the events it records (the outbox): an approval's change of state
 * always gets its event out, and no tool call or tap waits for NATS to publish it.
 */
export function withEvents<T>(deps: McpDeps, change: (tx: McpTx, events: PendingEvents) => Promise<T>): Promise<T> {
  return commitWithEvents((work) => deps.prisma.$transaction(work), deps.outbox, change);
}
