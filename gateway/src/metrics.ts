import { scrapedValue } from '@voice/kit';
import type { Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';
import { redisAppendOnly } from './quota/persistence.js';
import type { QuotaVerdict } from './quota/quota.js';

/** What the quota call decided for a request; `redis_unavailable` when Redis did not answer (the request is 503). */
export type QuotaDecision = 'allowed' | 'over_quota' | 'over_rate' | 'revoked' | 'redis_unavailable';

const decisionOf: Record<QuotaVerdict, QuotaDecision> = {
  allowed: 'allowed',
  quota_exceeded: 'over_quota',
  rate_limited: 'over_rate',
  revoked: 'revoked',
};

/**
 * The gateway's own metrics beside kit's (requests by route, NATS, outbox, process) and the audit buffer's
 * (audit/publisher.ts): the quota decisions (`gateway_quota_decisions_total{decision}`) and whether Redis,
 * which holds the quota counters, writes an append-only file (`gateway_redis_append_only`, read at scrape).
 */
export class GatewayMetrics {
  private readonly decisions: Counter<'decision'>;

  constructor(registry: Registry, redis: Redis) {
    this.decisions = new Counter({
      name: 'gateway_quota_decisions_total',
      help: 'Quota decisions on authenticated API requests: allowed, over_quota (monthly quota used up), over_rate (daily plan limit), revoked (key ended), redis_unavailable (answered 503)',
      labelNames: ['decision'],
      registers: [registry],
    });
    // Every decision from zero, so that a rate is defined before the first refusal.
    for (const decision of ['allowed', 'over_quota', 'over_rate', 'revoked', 'redis_unavailable'] as const)
      this.decisions.inc({ decision }, 0);
    const appendOnly = scrapedValue(registry, 'redis_persistence', () => redisAppendOnly(redis));
    new Gauge({
      name: 'gateway_redis_append_only',
      help: 'Whether the Redis holding quota counters writes an append-only file (1), or not (0: a restart loses the counters); NaN when Redis does not say',
      registers: [registry],
      async collect() {
        const value = await appendOnly();
        this.set(value === undefined ? Number.NaN : value ? 1 : 0);
      },
    });
  }

  /** The quota script's verdict for one request. */
  quotaDecided(verdict: QuotaVerdict): void {
    this.decisions.inc({ decision: decisionOf[verdict] });
  }

  /** The quota call failed (Redis away or too slow): the request was answered 503. */
  quotaUnavailable(): void {
    this.decisions.inc({ decision: 'redis_unavailable' });
  }
}
