import { z } from 'zod';

/**
 * Every error code the platform returns, with its HTTP status. One table: the gateway, the services and
 * the MCP tools all map codes to statuses from here, and NATS carries only the code across.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_cursor: 400,
  missing: 401,
  unknown_key: 401,
  revoked: 401,
  invalid_token: 401,
  unauthenticated: 401,
  forbidden_scope: 403,
  plan_required: 403,
  key_limit_reached: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  dnc_blocked: 422,
  quota_exceeded: 429,
  rate_limited: 429,
  internal: 500,
  coming_soon: 501,
  upstream_failed: 502,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;

export const errorCodeSchema = z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorStatus, value);
}

/** The one error envelope of the public API. `param` names the input at fault, when there is one. */
export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: errorCodeSchema,
      message: z.string(),
      param: z.string().optional(),
      request_id: z.string().optional(),
    }),
  })
  .meta({ id: 'Error' });

export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** How an error crosses NATS: the code and message only, rebuilt into the error class on the other side. */
export const wireErrorSchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  param: z.string().optional(),
});
export type WireError = z.infer<typeof wireErrorSchema>;
