// The console's formatting module: what people read for numbers, times, money and phone numbers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatterFor, isTimeZone, localeFrom, timeZones } from '../src/views/format.js';

// Intl puts a narrow no-break space before AM/PM and in some groupings; compare on plain spaces.
const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, ' ');

describe('the console formats for the person reading', () => {
  test('the locale is the first language of Accept-Language the runtime supports, by q then order', () => {
    assert.equal(localeFrom(undefined), 'en');
    assert.equal(localeFrom(''), 'en');
    assert.equal(localeFrom('de-DE,de;q=0.9,en;q=0.8'), 'de-DE');
    assert.equal(localeFrom('en;q=0.5, fr-CA;q=0.9'), 'fr-CA');
    assert.equal(localeFrom('*;q=1, ja'), 'ja');
    assert.equal(localeFrom('xx-notalang-!!, pt-BR'), 'pt-BR');
    assert.equal(localeFrom('de;q=0'), 'en', 'q=0 means not acceptable');
    assert.equal(localeFrom('a'.repeat(5000)), 'en');
  });

  test('moments are shown in the person’s time zone and locale, to the minute, with the zone', () => {
    const moment = '2026-11-27T05:19:42.000Z';
    assert.equal(plain(formatterFor().dateTime(moment)), 'Nov 27, 2026, 5:19 AM UTC');
    assert.equal(plain(formatterFor({ locale: 'en-US', timeZone: 'America/New_York' }).dateTime(moment)), 'Nov 27, 2026, 12:19 AM EST');
    assert.equal(plain(formatterFor({ locale: 'de-DE', timeZone: 'Europe/Berlin' }).dateTime(moment)), '27. Nov. 2026, 06:19 MEZ');
    assert.equal(
      plain(formatterFor({ locale: 'en-GB', timeZone: 'Asia/Kolkata' }).dateTime(new Date(moment))),
      '27 Nov 2026, 10:49 GMT+5:30',
    );
    assert.equal(formatterFor().dateTime(null), '—');
    assert.equal(formatterFor().dateTime(null, 'never'), 'never');
  });

  test('a calendar day stays the day it names; a moment’s day is the person’s', () => {
    const tokyo = formatterFor({ locale: 'en', timeZone: 'Asia/Tokyo' });
    assert.equal(tokyo.day('2026-01-31'), 'Jan 31, 2026');
    assert.equal(tokyo.day(new Date('2026-01-31T20:00:00Z')), 'Feb 1, 2026');
  });

  test('numbers and money follow the locale', () => {
    assert.equal(formatterFor().number(1234567), '1,234,567');
    assert.equal(plain(formatterFor({ locale: 'de-DE', timeZone: 'UTC' }).number(1234567.5)), '1.234.567,5');
    assert.equal(plain(formatterFor({ locale: 'fr-FR', timeZone: 'UTC' }).number(1234567)), '1 234 567');
    assert.equal(formatterFor().money(1234.5, 'USD'), '$1,234.50');
    assert.equal(plain(formatterFor({ locale: 'de-DE', timeZone: 'UTC' }).money(1234.5, 'EUR')), '1.234,50 €');
    assert.equal(formatterFor({ locale: 'ja-JP', timeZone: 'UTC' }).money(1234, 'JPY'), '￥1,234');
  });

  test('phone numbers are shown in international format; anything else as it came', () => {
    const format = formatterFor();
    assert.equal(format.phone('+14155552671'), '+1 415 555 2671');
    assert.equal(format.phone('+442071838750'), '+44 20 7183 8750');
    assert.equal(format.phone('+4930123456'), '+49 30 123456');
    assert.equal(format.phone('not a number'), 'not a number');
    assert.equal(format.phone('0301234567'), '0301234567', 'without a country code there is nothing to be sure of');
  });

  test('time zones: the runtime’s IANA names are valid, anything else is not; UTC is offered first', () => {
    assert.equal(isTimeZone('Europe/Berlin'), true);
    assert.equal(isTimeZone('UTC'), true);
    assert.equal(isTimeZone('Mars/Olympus_Mons'), false);
    assert.equal(isTimeZone(''), false);
    assert.equal(timeZones[0], 'UTC');
    assert.ok(timeZones.includes('America/Los_Angeles'));
    assert.equal(new Set(timeZones).size, timeZones.length);
  });

  test('formatters are reused per audience', () => {
    assert.equal(formatterFor({ locale: 'en', timeZone: 'UTC' }), formatterFor({ locale: 'en', timeZone: 'UTC' }));
  });
});
