// Pieces the leads records share: calendar dates, time zones and locales.
import { z } from 'zod';
import { supportedYear } from '../common.js';

/** A calendar date without a time, e.g. an invoice's due date. */
export const calendarDateSchema = z.iso.date().refine(supportedYear, 'must be a date from 1970 on').describe('Calendar date, YYYY-MM-DD');

export const ianaTimezoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine((value) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone, e.g. America/New_York')
  .describe('IANA time zone, e.g. America/New_York');

export const bcp47LocaleSchema = z
  .string()
  .min(2)
  .max(35)
  .refine((value) => {
    try {
      return Intl.getCanonicalLocales(value).length === 1;
    } catch {
      return false;
    }
  }, 'must be a BCP 47 language tag, e.g. en-US')
  .describe('BCP 47 language tag, e.g. en-US');
