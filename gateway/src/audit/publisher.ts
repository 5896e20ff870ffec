import type { Bus, Logger } from '@voice/kit';
import type { ApiCall } from './writer.js';

/**
 * Collects audit records off the request path and publishes them to JetStream in batches, one `api.called`
 * event per organization per flush. One publish per request would cost the gateway about a third of its
 * throughput; a batch costs the same as one. What a crash can lose is bounded by the flush interval, and
 * a clean shutdown flushes everything.
 */
export class AuditPublisher {
  private byOrg = new Map<string, ApiCall[]>();
  private buffered = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly options: { flushMs: number; maxBuffered: number },
  ) {}

  add(orgId: string, call: ApiCall): void {
    const calls = this.byOrg.get(orgId);
    if (calls) calls.push(call);
    else this.byOrg.set(orgId, [call]);
    this.buffered++;
    if (this.buffered >= this.options.maxBuffered) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = this.byOrg;
    this.byOrg = new Map();
    this.buffered = 0;
    await Promise.all(
      [...batches].map(async ([orgId, calls]) => {
        try {
          await this.bus.publish('api.called', orgId, { calls });
        } catch (error) {
          this.logger.error({ err: error, org_id: orgId, records: calls.length }, 'audit records not published');
        }
      }),
    );
  }
}
