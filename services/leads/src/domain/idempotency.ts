import { idempotent } from '@voice/kit';
import type { LeadsDeps } from '../deps.js';

/**
 * Runs a create or a send at most once per `Idempotency-Key` (the header on REST, `idempotency_key` over
 * NATS). Callers name the operation per door (`leads.create`, `rpc.leads.create`): a retry comes back
 * through the door it first used, and the two doors fingerprint their requests differently.
 */
export async function onceFor<T>(
  deps: LeadsDeps,
  orgId: string,
  operation: string,
  key: string | undefined,
  fingerprint: unknown,
  work: () => Promise<T>,
  status = 201,
): Promise<{ status: number; body: T; replayed: boolean }> {
  return idempotent({ redis: deps.redis, prefix: deps.env.REDIS_PREFIX, orgId, operation, key, fingerprint }, async () => ({
    status,
    body: await work(),
  }));
}
