import { z } from 'zod';
import { timestampSchema } from './common.js';
import { type Plan, planSchema, scopeSchema } from './identity.js';
import { idSchema } from './ids.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc } from './rpc.js';

/** What each plan allows (seed, "Limits"). `null` means unlimited. */
export interface PlanLimits {
  readWriteKeys: boolean;
  dailyRequests: number | null;
  maxKeys: number | null;
  auditRetentionDays: number | null;
  webhooks: boolean;
}

export const planLimits: Record<Plan, PlanLimits> = {
  lite: { readWriteKeys: false, dailyRequests: 10_000, maxKeys: 1, auditRetentionDays: 7, webhooks: false },
  starter: { readWriteKeys: true, dailyRequests: 100_000, maxKeys: 5, auditRetentionDays: 30, webhooks: true },
  pro: { readWriteKeys: true, dailyRequests: 1_000_000, maxKeys: null, auditRetentionDays: 365, webhooks: true },
  enterprise: { readWriteKeys: true, dailyRequests: null, maxKeys: null, auditRetentionDays: null, webhooks: true },
};

export const keyStatuses = ['active', 'revoked'] as const;

export const organizationSchema = z
  .object({
    id: idSchema('org'),
    object: z.literal('organization'),
    name: z.string(),
    plan: planSchema,
    created_at: timestampSchema,
  })
  .meta({ id: 'Organization' });

export const apiKeySchema = z
  .object({
    id: idSchema('key'),
    object: z.literal('api_key'),
    org_id: z.string(),
    display_prefix: z.string().describe('The first characters of the key, to recognise it; the key itself is never shown again.'),
    scope: scopeSchema,
    monthly_quota: z.number().int().nonnegative(),
    status: z.enum(keyStatuses),
    expires_at: timestampSchema.nullable().describe('Set while the key is in its rotation grace period.'),
    created_at: timestampSchema,
    last_used_at: timestampSchema.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;

export const auditRecordSchema = z
  .object({
    id: z.string(),
    object: z.literal('audit_record'),
    key_id: z.string(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    latency_ms: z.number().int(),
    request_id: z.string(),
    client_address: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({ id: 'AuditRecord' });

export const listAuditLogQuerySchema = listQuerySchema.extend({
  key_id: idSchema('key').optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  created_after: timestampSchema.optional(),
  created_before: timestampSchema.optional(),
});
export const auditPageSchema = pageSchema(auditRecordSchema).meta({ id: 'AuditRecordPage' });

export const usageSchema = z
  .object({
    object: z.literal('usage'),
    plan: planSchema,
    key_id: z.string(),
    monthly: z.object({ used: z.number().int(), quota: z.number().int(), resets_at: timestampSchema }),
    daily: z.object({ used: z.number().int(), limit: z.number().int().nullable(), resets_at: timestampSchema }),
    limits: z.object({
      max_keys: z.number().int().nullable(),
      audit_retention_days: z.number().int().nullable(),
      webhooks: z.boolean(),
      read_write_keys: z.boolean(),
    }),
  })
  .meta({ id: 'Usage' });
export type Usage = z.infer<typeof usageSchema>;

/** Whether a key may still act now: revoked (by hand, or by rotation with no live successor) or active, and its scope. */
export const keyStandingSchema = z.object({
  key_id: z.string(),
  status: z.enum(keyStatuses),
  scope: scopeSchema,
});
export type KeyStanding = z.infer<typeof keyStandingSchema>;

/**
 * The gateway's own operations over NATS: usage and the audit log (MCP tools service_get_usage and
 * service_list_audit_log), and a key's standing (approvals re-check the requester's key before acting).
 */
export const gatewayRpc = {
  keyStanding: defineRpc('svc.gateway.keys.standing', z.object({ key_id: z.string().min(1).max(64) }), keyStandingSchema, 'read'),
  getUsage: defineRpc('svc.gateway.usage.get', z.object({}), usageSchema, 'read'),
  listAuditLog: defineRpc('svc.gateway.audit.list', listAuditLogQuerySchema, auditPageSchema, 'read'),
};
