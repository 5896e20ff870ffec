import type { Logger } from '@voice/kit';
import type { EventEnvelope } from '@voice/proto';
import { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client.js';

/** One API call as the gateway records it (never the key, never bodies); `id` is the audit record's id. */
export const apiCallSchema = z.object({
  id: z.string(),
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

/** The data of an `api.called` event: a batch of one organization's calls. */
export const apiCallBatchSchema = z.object({ calls: z.array(apiCallSchema) });

interface Pending {
  orgId: string;
  calls: ApiCall[];
  settle: (error?: unknown) => void;
}

/**
 * Inserts audit records in batches. Each JetStream message is acknowledged only after the insert holding
 * its records is committed, so a Postgres outage only delays records: the stream keeps them until the
 * insert succeeds. Records carry their own ids and times, so a redelivered event is skipped, not duplicated.
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
    const { calls } = apiCallBatchSchema.parse(event.data);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ orgId: event.org_id, calls, settle: (error) => (error ? reject(error) : resolve()) });
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
      // The batch travels as one JSON parameter that Postgres unpacks, each event's calls as they came: a
      // generated multi-row insert, one array parameter per column, or a copy of every record with its
      // organization added costs the writer more CPU than the insert itself. As jsonb it is parsed once;
      // as json, each event's calls would be parsed a second time.
      const events = batch.map(({ orgId, calls }) => ({ org_id: orgId, calls }));
      await this.prisma.$executeRaw`
        INSERT INTO audit_records (id, org_id, key_id, method, path, status, latency_ms, request_id, client_address, created_at)
        SELECT r.id, e.org_id, r.key_id, r.method, r.path, r.status, r.latency_ms, r.request_id, r.client_address, r."at"
        FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS e(org_id text, calls jsonb)
        CROSS JOIN LATERAL jsonb_to_recordset(e.calls) AS r(
          id text, key_id text, method text, path text, status int, latency_ms int,
          request_id text, client_address text, "at" timestamptz
        )
        ON CONFLICT (org_id, created_at, id) DO NOTHING`;
      for (const item of batch) item.settle();
    } catch (error) {
      this.logger.warn({ err: error, records: batch.length }, 'audit batch insert failed; the events will be redelivered');
      for (const item of batch) item.settle(error);
    }
  }
}
