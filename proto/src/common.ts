import { z } from 'zod';

/** Years the platform stores: Postgres has no year 0, and nothing here happens before 1970. */
export const supportedYear = (value: string) => {
  const year = Number(value.slice(0, 4));
  return year >= 1970 && year <= 9999;
};

export const timestampSchema = z.iso
  .datetime({ offset: true })
  .refine(supportedYear, 'must be a time from 1970 on')
  .describe('ISO 8601 UTC timestamp');

export const e164Schema = z
  .string()
  .regex(/^\+[1-9][0-9]{6,14}$/, 'must be an E.164 phone number, e.g. +14155550123')
  .describe('Phone number in E.164 form, e.g. +14155550123');

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code, e.g. USD')
  .describe('ISO 4217 currency code');

export const metadataSchema = z
  .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
  .refine((value) => Object.keys(value).length <= 50, 'at most 50 metadata keys')
  .describe('Up to 50 key/value pairs of your own');

/**
 * An idempotency key: the `Idempotency-Key` header on REST, `idempotency_key` in NATS inputs and MCP tool
 * arguments. The same key and request run once (packages/kit/src/idempotency.ts).
 */
export const idempotencyKeySchema = z.string().min(1).max(255);

/** The `Idempotency-Key` header of a REST operation that creates or sends; kit checks its characters. */
export const idempotencyKeyHeadersSchema = z.object({
  'idempotency-key': z.string().optional().describe('Makes the request safe to retry: the same key and body run once'),
});

/** The `idempotency_key` argument of an MCP tool that creates or sends. */
export const idempotencyKeyArgumentSchema = idempotencyKeySchema
  .optional()
  .describe('Any unique string; a retry with the same key and arguments returns the first result instead of acting twice');

/**
 * The answer to a delete: which record is gone. `id` is any string unless the record's id schema is given
 * (then it is checked and documented like the record's own id).
 */
export function deletedSchema<O extends string, I extends z.ZodType<string> = z.ZodString>(object: O, id?: I) {
  return z.object({ id: (id ?? z.string()) as I, object: z.literal(object), deleted: z.literal(true) });
}
