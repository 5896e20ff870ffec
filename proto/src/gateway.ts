import { z } from 'zod';
import { timestampSchema } from './common.js';
import { type Plan, planSchema, scopeSchema } from './identity.js';
import { idSchema } from './ids.js';
import { isTestOrg, testModeLimits } from './mode.js';
import { listQuerySchema, pageSchema } from './pagination.js';
import { defineRpc, nameOperations } from './rpc.js';

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

/**
 * The requests an organization may make per UTC day: its plan's, or test mode's own for a test twin, whose
 * counters are apart from the live organization's (mode.ts), so test traffic never spends live quota.
 */
export function dailyRequestLimit(orgId: string, plan: Plan): number | null {
  return isTestOrg(orgId) ? testModeLimits.dailyRequests : planLimits[plan].dailyRequests;
}

/** A new key's or grant's monthly quota: as asked, or test mode's for a test twin's credential. */
export function monthlyQuotaFor(orgId: string, asked: number): number {
  return isTestOrg(orgId) ? testModeLimits.monthlyRequests : asked;
}

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

export const auditActors = ['key', 'grant', 'user', 'system'] as const;

/**
 * Why the platform itself ended a grant (an audit record of actor `system`, or of actor `grant` for
 * `client_revoked`): its authorization code or a refresh token was used twice, its grantor left the
 * organization or took a role that may not grant its scope, or its client revoked it (RFC 7009).
 */
export const grantRevocationReasons = ['code_reuse', 'refresh_token_reuse', 'member_removed', 'role_changed', 'client_revoked'] as const;
export type GrantRevocationReason = (typeof grantRevocationReasons)[number];
export const auditStatusClasses = ['2xx', '4xx', '5xx'] as const;

export const auditRecordSchema = z
  .object({
    id: z.string(),
    object: z.literal('audit_record'),
    actor_type: z
      .enum(auditActors)
      .describe(
        '`key` for an API call with an API key; `grant` for one with an OAuth access token (key_id is then the grant id); `user` for a person acting in the console (key_id is then their user id); `system` for the platform’s own acts (key_id: the grant it ended).',
      ),
    key_id: z.string(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    latency_ms: z.number().int(),
    request_id: z.string(),
    client_address: z.string().nullable(),
    reason: z
      .string()
      .nullable()
      .describe(
        'Why a grant ended without a person asking (actor `system`, or `grant` for `client_revoked`): `code_reuse`, `refresh_token_reuse`, `member_removed`, `role_changed`, `client_revoked`; else null.',
      ),
    created_at: timestampSchema,
  })
  .meta({ id: 'AuditRecord' });

export const listAuditLogQuerySchema = listQuerySchema.extend({
  key_id: z
    .union([idSchema('key'), idSchema('grant')])
    .optional()
    .describe('An API key or an OAuth grant'),
  status: z.coerce.number().int().min(100).max(599).optional(),
  created_after: timestampSchema.optional(),
  created_before: timestampSchema.optional(),
  actor_type: z
    .enum(auditActors)
    .optional()
    .describe('Only API calls with keys (`key`) or OAuth grants (`grant`), console actions (`user`), or the platform’s own (`system`).'),
  status_class: z.enum(auditStatusClasses).optional().describe('Only successes (`2xx`), client errors (`4xx`) or server errors (`5xx`).'),
  path_prefix: z.string().regex(/^\//).max(200).optional().describe('Only paths that start with this, e.g. `/api/v1/phone`.'),
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

/**
 * The organization's API calls per UTC day and key over the last 30 days (console actions are not API
 * calls), today's count against the plan's daily limit, and each key's month against its quota.
 */
export const usageHistorySchema = z.object({
  days: z.array(z.object({ date: z.iso.date(), key_id: z.string(), count: z.number().int().nonnegative() })),
  from: z.iso.date(),
  today: z.object({ used: z.number().int().nonnegative(), limit: z.number().int().nullable() }),
  keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.enum(keyStatuses),
      monthly_used: z.number().int(),
      monthly_quota: z.number().int(),
    }),
  ),
});
export type UsageHistory = z.infer<typeof usageHistorySchema>;

/** Whether a key may still act now: revoked (by hand, or by rotation with no live successor) or active, and its scope. */
export const keyStandingSchema = z.object({
  key_id: z.string(),
  status: z.enum(keyStatuses),
  scope: scopeSchema,
});
export type KeyStanding = z.infer<typeof keyStandingSchema>;

/** The organization as the console shows it, with what its plan allows for keys. */
export const organizationLimitsSchema = organizationSchema.extend({
  max_keys: z.number().int().nullable(),
  read_write_keys: z.boolean(),
  /** Keys that count against `max_keys`: active and not retiring after a rotation. */
  counted_keys: z.number().int().nonnegative(),
});

/** A key as the console lists it: never the key or its hash, only its first and last characters. */
export const consoleKeySchema = apiKeySchema.extend({
  name: z.string(),
  display_suffix: z.string(),
  created_by: z.string().nullable(),
  rotated_to_id: z.string().nullable(),
  monthly_used: z.number().int().nonnegative(),
});
export type ConsoleKey = z.infer<typeof consoleKeySchema>;

/** Grace periods the console offers when rotating: now, 1 hour, 24 hours, 7 days. */
export const rotationGraceSeconds = [0, 3_600, 86_400, 604_800] as const;

export const createKeyInputSchema = z.object({
  name: z.string().trim().min(1).max(100),
  scope: scopeSchema,
  monthly_quota: z.number().int().min(1).max(1_000_000_000),
  expires_at: timestampSchema.optional(),
});
const keyIdInputSchema = z.object({ key_id: z.string().min(1).max(64) });
const newKeySchema = z.object({ key: z.string(), record: consoleKeySchema });

/**
 * The gateway's own operations over NATS: the organization and its keys for the console (the identity's
 * `user_id` must be set, and the organization is always the identity's), usage and the audit log (MCP tools service_get_usage and
 * service_list_audit_log), and a key's standing (approvals re-check the requester's key before acting).
 */
export const gatewayRpc = nameOperations({
  keyStanding: defineRpc('svc.gateway.keys.standing', z.object({ key_id: z.string().min(1).max(64) }), keyStandingSchema, 'read'),
  getUsage: defineRpc('svc.gateway.usage.get', z.object({}), usageSchema, 'read', {
    http: { method: 'GET', path: '/api/v1/usage', tags: ['account'], summary: "Quota used by this key and the organization's plan limits" },
  }),
  listAuditLog: defineRpc('svc.gateway.audit.list', listAuditLogQuerySchema, auditPageSchema, 'read', {
    http: {
      method: 'GET',
      path: '/api/v1/audit-log',
      tags: ['account'],
      summary: "The organization's API calls, newest first",
      query: listAuditLogQuerySchema,
    },
  }),
  getUsageHistory: defineRpc('svc.gateway.usage.history', z.object({}), usageHistorySchema, 'read'),
  getOrganization: defineRpc('svc.gateway.organization.get', z.object({}), organizationLimitsSchema, 'read'),
  /**
   * Renames the identity's organization (a person in the console; the console lets owners only). Names as
   * the operator's `org create` takes them: 1 to 200 characters, trimmed.
   */
  renameOrganization: defineRpc(
    'svc.gateway.organization.rename',
    z.object({ name: z.string().max(1000) }),
    organizationSchema,
    'read-write',
  ),
  // Without `limit`, all keys (the usage and audit log pages name every key); with it, one page, newest first.
  listKeys: defineRpc(
    'svc.gateway.keys.list',
    z.object({ limit: z.number().int().min(1).max(100).optional(), cursor: z.string().min(1).max(512).optional() }),
    z.object({ data: z.array(consoleKeySchema), has_more: z.boolean(), next_cursor: z.string().nullable() }),
    'read',
  ),
  // One key of the organization (the revoke confirmation), without reading the whole list.
  getKey: defineRpc('svc.gateway.keys.get', keyIdInputSchema, consoleKeySchema, 'read'),
  createKey: defineRpc('svc.gateway.keys.create', createKeyInputSchema, newKeySchema, 'read-write'),
  rotateKey: defineRpc(
    'svc.gateway.keys.rotate',
    keyIdInputSchema.extend({ grace_seconds: z.literal(rotationGraceSeconds) }),
    newKeySchema.extend({ replaces: consoleKeySchema }),
    'read-write',
  ),
  revokeKey: defineRpc('svc.gateway.keys.revoke', keyIdInputSchema, consoleKeySchema, 'read-write'),
  /**
   * Records a change a person made in the console through another service's operation (a call queued or
   * canceled) in the audit log, with the person as actor, as the gateway records its own key changes.
   */
  recordConsoleAction: defineRpc(
    'svc.gateway.audit.record_console_action',
    z.object({
      path: z.string().regex(/^\/dashboard\/[\w./-]{1,200}$/),
      status: z.number().int().min(100).max(599),
      latency_ms: z.number().int().min(0).max(3_600_000),
    }),
    z.object({ recorded: z.literal(true) }),
    'read-write',
  ),
});
