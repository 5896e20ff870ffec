import parsePhoneNumber from 'libphonenumber-js/min';

/**
 * Numbers, times, money and phone numbers as the person reads them: every view formats through here, so a
 * figure looks the same on every page. The locale comes from the browser's Accept-Language; the time zone
 * is the person's setting (browsers send none), UTC until they choose one on the Preferences page.
 */
export interface Audience {
  /** A BCP 47 tag the runtime supports, e.g. `en-GB`. */
  locale: string;
  /** An IANA time zone, e.g. `Europe/Berlin`. */
  timeZone: string;
}

export const defaultAudience: Audience = { locale: 'en', timeZone: 'UTC' };

/** Accept-Language is short in practice; a longer header is read no further than this many entries. */
const maxLanguages = 20;

/**
 * The first language of an Accept-Language header (by `q`, then order) that Intl supports, else `en`.
 * `*` and malformed entries are skipped.
 */
export function localeFrom(acceptLanguage: string | undefined): string {
  if (!acceptLanguage) return defaultAudience.locale;
  const ranked = acceptLanguage
    .split(',', maxLanguages)
    .map((part, index) => {
      const [tag = '', ...parameters] = part.trim().split(';');
      const q = parameters.map((parameter) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(parameter)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(entry.tag))
    .sort((left, right) => right.q - left.q || left.index - right.index);
  for (const { tag } of ranked) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf(tag);
      if (supported) return supported;
    } catch {
      // A structurally valid but unknown tag: try the next.
    }
  }
  return defaultAudience.locale;
}

/** Whether the runtime knows this IANA time zone (what the Preferences form accepts). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The zones the Preferences form offers: UTC first, then the runtime's list (which leaves UTC out). */
export const timeZones: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

export interface Formatter {
  readonly audience: Audience;
  /** A moment, to the minute, with the zone's short name: `Nov 27, 2026, 5:19 AM UTC`. `empty` for none. */
  dateTime(value: string | Date | null | undefined, empty?: string): string;
  /** A calendar day as written in the locale, e.g. `Nov 27, 2026` (a `YYYY-MM-DD` day is taken as is, not shifted). */
  day(value: string | Date): string;
  /** A count, grouped as the locale groups digits. */
  number(value: number): string;
  /** An amount of money in major units (dollars, not cents) of an ISO 4217 currency. */
  money(amount: number, currency: string): string;
  /** A phone number in international format (`+1 415 555 2671`); anything unparseable as it came. */
  phone(value: string): string;
}

/** Intl formatters are costly to build and a page formats hundreds of values: one set per audience. */
const cache = new Map<string, Formatter>();
const cacheLimit = 200;

export function formatterFor(audience: Audience = defaultAudience): Formatter {
  const cacheKey = `${audience.locale}|${audience.timeZone}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const formatter = build(audience);
  if (cache.size >= cacheLimit) cache.clear();
  cache.set(cacheKey, formatter);
  return formatter;
}

function build(audience: Audience): Formatter {
  const { locale, timeZone } = audience;
  const moment = new Intl.DateTimeFormat(locale, {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  // A day has no zone of its own: it is shown as the calendar date it names.
  const calendarDay = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });
  const dayInZone = new Intl.DateTimeFormat(locale, { timeZone, year: 'numeric', month: 'short', day: 'numeric' });
  const count = new Intl.NumberFormat(locale);
  const currencies = new Map<string, Intl.NumberFormat>();
  return {
    audience,
    dateTime(value, empty = '—') {
      if (value === null || value === undefined) return empty;
      const date = typeof value === 'string' ? new Date(value) : value;
      return Number.isNaN(date.getTime()) ? String(value) : moment.format(date);
    },
    day(value) {
      if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return calendarDay.format(new Date(`${value}T00:00:00Z`));
      const date = typeof value === 'string' ? new Date(value) : value;
      return Number.isNaN(date.getTime()) ? String(value) : dayInZone.format(date);
    },
    number: (value) => count.format(value),
    money(amount, currency) {
      let format = currencies.get(currency);
      if (!format) {
        format = new Intl.NumberFormat(locale, { style: 'currency', currency });
        currencies.set(currency, format);
      }
      return format.format(amount);
    },
    phone(value) {
      try {
        return parsePhoneNumber(value)?.formatInternational() ?? value;
      } catch {
        return value;
      }
    },
  };
}
