import type { Logger } from '@voice/kit';
import type { EventEnvelope } from '@voice/proto';
import { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client.js';

/** What the gateway publishes per API call as `api.called` (never the key, never bodies). */
export const apiCallSchema = z.object({
  key_id: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  latency_ms: z.number().int(),
  request_id: z.string(),
  client_address: z.string().nullable(),
  at: z.string(),
});
export type ApiCall = z.infer<typeof apiCallSchema>;

interface Pending {
  event: EventEnvelope;
  call: ApiCall;
  settle: (error?: unknown) => void;
}

/**
 * Inserts audit records in batches. Each JetStream message is acknowledged only after the batch holding
 * it is committed, so a Postgres outage only delays records: the stream keeps them until the insert
 * succeeds. The event id is the record id, so a redelivered event is skipped, not duplicated.
 */
export class AuditWriter {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: { batchSize: number; flushMs: number },
  ) {}

  add(event: EventEnvelope): Promise<void> {
    const call = apiCallSchema.parse(event.data);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ event, call, settle: (error) => (error ? reject(error) : resolve()) });
      if (this.pending.length >= this.options.batchSize) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
    });
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.prisma.auditRecord.createMany({
        data: batch.map(({ event, call }) => ({
          id: event.id,
          orgId: event.org_id,
          keyId: call.key_id,
          method: call.method,
          path: call.path,
          status: call.status,
          latencyMs: call.latency_ms,
          requestId: call.request_id,
          clientAddress: call.client_address,
          createdAt: new Date(call.at),
        })),
        skipDuplicates: true,
      });
      for (const item of batch) item.settle();
    } catch (error) {
      this.logger.warn({ err: error, records: batch.length }, 'audit batch insert failed; the events will be redelivered');
      for (const item of batch) item.settle(error);
    }
  }
}
