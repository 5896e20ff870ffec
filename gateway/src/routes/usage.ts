import { type HttpApp, identityOf } from '@voice/kit';
import { auditPageSchema, gatewayRpc, type Identity, listAuditLogQuerySchema, planLimits, type Usage, usageSchema } from '@voice/proto';
import { listAuditLog } from '../audit/store.js';
import type { GatewayDeps } from '../deps.js';
import { findGrantByKeyId } from '../keys/store.js';
import { readUsage } from '../quota/quota.js';

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
    daily: { used: usage.dailyUsed, limit: limits.dailyRequests, resets_at: usage.dailyResetsAt.toISOString() },
    limits: {
      max_keys: limits.maxKeys,
      audit_retention_days: limits.auditRetentionDays,
      webhooks: limits.webhooks,
      read_write_keys: limits.readWriteKeys,
    },
  };
}

export function usageRoutes(app: HttpApp, deps: GatewayDeps): void {
  app.get(
    '/api/v1/usage',
    {
      schema: { tags: ['account'], summary: "Quota used by this key and the organization's plan limits", response: { 200: usageSchema } },
      config: { operation: gatewayRpc.getUsage },
    },
    async (request) => usageOf(deps, identityOf(request)),
  );

  app.get(
    '/api/v1/audit-log',
    {
      schema: {
        tags: ['account'],
        summary: "The organization's API calls, newest first",
        querystring: listAuditLogQuerySchema,
        response: { 200: auditPageSchema },
      },
      config: { operation: gatewayRpc.listAuditLog },
    },
    async (request) => listAuditLog(deps.prisma, identityOf(request).org_id, request.query),
  );
}
