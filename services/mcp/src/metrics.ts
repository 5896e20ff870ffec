import { observeBacklog, type RawQueries } from '@voice/kit';
import type { Registry } from 'prom-client';

/**
 * Approvals waiting for a person, read from the table at scrape time: how many (`mcp_approvals_pending`)
 * and how long the oldest has waited (`mcp_approvals_oldest_pending_age_seconds`, 0 when none waits). An
 * approval past its expiry stays pending until the sweep marks it expired (APPROVAL_SWEEP_INTERVAL_MS).
 */
export function observeApprovals(registry: Registry, database: RawQueries): void {
  observeBacklog(registry, {
    collector: 'approvals',
    database,
    table: 'approvals',
    where: "status = 'pending'",
    count: { name: 'mcp_approvals_pending', help: "Approvals waiting for a person's decision, in every organization" },
    oldestAge: {
      name: 'mcp_approvals_oldest_pending_age_seconds',
      help: 'How long the oldest approval still waiting for a decision has waited (0 when none waits)',
    },
  });
}
