import { z } from 'zod';

export const plans = ['lite', 'starter', 'pro', 'enterprise'] as const;
export const planSchema = z.enum(plans);
export type Plan = z.infer<typeof planSchema>;

export const scopes = ['read', 'read-write'] as const;
export const scopeSchema = z.enum(scopes);
export type Scope = z.infer<typeof scopeSchema>;

/**
 * Who is calling, as the gateway established it. Services receive it in signed headers (HTTP) or inside
 * the request envelope (NATS) and never from a request body or tool argument.
 */
export const identitySchema = z.object({
  org_id: z.string(),
  /**
   * The API key that made the call; for a person acting through the console, their user id (the same as
   * `user_id`), so every record that keeps who acted (audit log, approvals) stays filled.
   */
  key_id: z.string(),
  /**
   * Set only when a person acts through the console (`usr_…`): the gateway's console operations require
   * it, and record the person as the actor. API keys never carry it.
   */
  user_id: z.string().optional(),
  /**
   * The person an API key or OAuth grant belongs to (`usr_…`: who created the key in the console, or who
   * granted the app), so that what the credential asks a person to confirm (an MCP URL elicitation) is bound
   * to that person. Absent for keys the admin CLI made, which belong to nobody.
   */
  owner_user_id: z.string().optional(),
  /**
   * Set only for an OAuth access token: the path of the MCP URL its grant was issued for (its RFC 8707
   * resource, e.g. `/api/mcp/x/leads/readonly`). The gateway accepts the token only there; the mcp service
   * serves no toolset and no write that this URL does not select, whatever the request's own selection.
   */
  resource: z.string().optional(),
  scope: scopeSchema,
  plan: planSchema,
  request_id: z.string(),
  /** The key's monthly count after this request, and its quota, as the gateway's Lua call returned them. */
  monthly_used: z.number().int().nonnegative(),
  monthly_quota: z.number().int().nonnegative(),
});
export type Identity = z.infer<typeof identitySchema>;

export function scopeAllows(granted: Scope, needed: Scope): boolean {
  return granted === 'read-write' || needed === 'read';
}
