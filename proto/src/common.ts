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
