import { dailyRequestLimit, type Identity, planLimits, type Usage } from '@voice/proto';
import type { GatewayDeps } from '../deps.js';
import { findGrantByKeyId } from '../keys/store.js';
import { readUsage } from './quota.js';

/** The caller's usage: the key's monthly count and quota, the organization's daily count and limit. */
export async function usageOf(deps: GatewayDeps, identity: Identity): Promise<Usage> {
  const grant = await findGrantByKeyId(deps.prisma, identity.org_id, identity.key_id);
  const limits = planLimits[identity.plan];
  const usage = await readUsage(deps.redis, {
    prefix: deps.env.REDIS_PREFIX,
    orgId: identity.org_id,
    lineageId: grant.lineageId,
    now: deps.now(),
  });
  return {
    object: 'usage',
    plan: identity.plan,
    key_id: identity.key_id,
    monthly: { used: usage.monthlyUsed, quota: grant.monthlyQuota, resets_at: usage.monthlyResetsAt.toISOString() },
    daily: {
      used: usage.dailyUsed,
      limit: dailyRequestLimit(identity.org_id, identity.plan),
      resets_at: usage.dailyResetsAt.toISOString(),
    },
    limits: {
      max_keys: limits.maxKeys,
      audit_retention_days: limits.auditRetentionDays,
      webhooks: limits.webhooks,
      read_write_keys: limits.readWriteKeys,
    },
  };
}
