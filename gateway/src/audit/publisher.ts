import { type Bus, type EventId, eventId, type Logger, type SpanContext } from '@voice/kit';
import type { ApiCall } from '@voice/proto';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface AuditPublisherOptions {
  /** How long records are collected before they are published. */
  flushMs: number;
  /** Publish early once this many records are collected (one event stays well under NATS' 1 MB payload). */
  flushAt: number;
  /** Most records held in memory, collected or waiting for NATS; past it new records are dropped and counted. */
  maxHeld: number;
  /** Back-off between attempts while NATS does not take a batch: from `retryMs`, doubling up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
  /** Where the gateway's own metrics live (served on /metrics). */
  metrics: Registry;
}

/** One `api.called` event: its id is fixed when the batch is made, so every retry is the same event. */
interface Batch {
  id: EventId;
  orgId: string;
  calls: ApiCall[];
  /** The sampled requests' spans, which the batch's publish links to (tracing on only). */
  causes: SpanContext[];
}

/**
 * Collects audit records off the request path and publishes them to JetStream in batches, one `api.called`
 * event per organization per flush. One publish per request would cost the gateway about a third of its
 * throughput; a batch costs the same as one.
 *
 * A batch NATS does not take (down, restarting, timing out) is kept and retried with back-off, under the
 * same event id: a publish that timed out but was stored is dropped by JetStream's duplicate window as a
 * repeat, and after the window by the audit writer, which skips records it already has (they carry their
 * own ids). Memory is bounded by `maxHeld` records; past it new records are dropped, counted in
 * `gateway_audit_records_dropped_total` and logged once per overflow. `close` publishes what is held,
 * waiting a bounded time for NATS.
 */
export class AuditPublisher {
  private byOrg = new Map<string, { calls: ApiCall[]; causes: SpanContext[] }>();
  private collected = 0;
  private unsent: Batch[] = [];
  private unsentRecords = 0;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private retryDelayMs: number;
  /** Ends a back-off wait early (a flush or shutdown wants to try now). */
  private wake: (() => void) | undefined;
  private overflowing = false;
  private failing = false;
  /** Shutting down: retry without growing back-off; `stopped` once the shutdown wait is over. */
  private closing = false;
  private stopped = false;
  private readonly dropped: Counter;

  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly options: AuditPublisherOptions,
  ) {
    this.retryDelayMs = options.retryMs;
    this.dropped = new Counter({
      name: 'gateway_audit_records_dropped_total',
      help: 'Audit records dropped because the publish buffer was full (NATS away for too long)',
      registers: [options.metrics],
    });
    const held = () => this.held;
    new Gauge({
      name: 'gateway_audit_records_held',
      help: 'Audit records held in memory: collected, or waiting for NATS to take them',
      registers: [options.metrics],
      collect() {
        this.set(held());
      },
    });
  }

  /** Records collected or waiting to be published. */
  get held(): number {
    return this.collected + this.unsentRecords;
  }

  /** `cause`: the request's span, when tracing is on and it was sampled (sampledRequestSpan). */
  add(orgId: string, call: ApiCall, cause?: SpanContext): void {
    if (this.held >= this.options.maxHeld) {
      this.dropped.inc();
      if (!this.overflowing) {
        this.overflowing = true;
        this.logger.error(
          { held: this.held, max_held: this.options.maxHeld },
          'audit buffer full: new audit records are dropped until NATS takes the held ones (see gateway_audit_records_dropped_total)',
        );
      }
      return;
    }
    let collected = this.byOrg.get(orgId);
    if (!collected) {
      collected = { calls: [], causes: [] };
      this.byOrg.set(orgId, collected);
    }
    collected.calls.push(call);
    // One span links to at most 128 others (the SDK's default limit); the rest would be dropped anyway.
    if (cause && collected.causes.length < 128) collected.causes.push(cause);
    this.collected++;
    if (this.collected >= this.options.flushAt) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.flushMs);
  }

  /** Turns what is collected into batches and publishes every held batch; resolves when the attempt ends. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const [orgId, { calls, causes }] of this.byOrg) this.unsent.push({ id: eventId(), orgId, calls, causes });
    this.unsentRecords += this.collected;
    this.byOrg = new Map();
    this.collected = 0;
    if (this.pumping) {
      this.wake?.();
      return this.pumping;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
    });
    return this.pumping;
  }

  /** Publishes held batches until none is left, waiting between attempts while NATS does not take them. */
  private async pump(): Promise<void> {
    while (this.unsent.length > 0 && !this.stopped) {
      const batches = this.unsent;
      this.unsent = [];
      const results = await Promise.allSettled(
        batches.map((batch) =>
          this.bus.publish(
            'api.called',
            batch.orgId,
            { calls: batch.calls },
            // A batch stands for many requests: its publish starts a trace of its own, linked to each of them.
            { id: batch.id, links: batch.causes.map((context) => ({ context })) },
          ),
        ),
      );
      const failed: Batch[] = [];
      results.forEach((result, index) => {
        const batch = batches[index] as Batch;
        if (result.status === 'fulfilled') this.unsentRecords -= batch.calls.length;
        else failed.push(batch);
      });
      if (failed.length === 0) {
        if (this.failing) this.logger.info({ held: this.held }, 'audit records are published again');
        this.failing = false;
        this.overflowing = false;
        this.retryDelayMs = this.options.retryMs;
        continue;
      }
      this.unsent = [...failed, ...this.unsent];
      if (!this.failing) {
        this.failing = true;
        const reason = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
        this.logger.warn({ err: reason.reason, held: this.held }, 'audit records not published; kept and retried');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.retryDelayMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      // A shutdown does not wait out a long back-off: it tries as often as NATS allows until its time is up.
      if (!this.closing) this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.options.maxRetryMs);
    }
  }

  /**
   * At shutdown: publishes everything held, waiting up to `waitMs` for NATS. What is still held then is
   * lost with the process, and said so in one log line.
   */
  async close(waitMs: number): Promise<void> {
    this.closing = true;
    this.retryDelayMs = this.options.retryMs;
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed_out'>((resolve) => {
      deadline = setTimeout(() => resolve('timed_out'), waitMs);
    });
    const outcome = await Promise.race([this.drain(), timedOut]);
    clearTimeout(deadline);
    this.stopped = true;
    this.wake?.();
    if (outcome === 'timed_out') {
      this.logger.error({ records: this.held, waited_ms: waitMs }, 'audit records not published before shutdown; they are lost');
    }
  }

  private async drain(): Promise<void> {
    while (this.held > 0 && !this.stopped) await this.flush();
  }
}
