import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { overviewQuerySchema } from '@voice/proto';
import { bucketStarts, localMidnight, resolvePeriod } from '../src/domain/periods.js';
import { splitPeriod } from '../src/store/overview.js';

describe('overview periods in the person’s time zone', () => {
  test('midnight where the person is: whole-hour, half-hour and daylight-saving zones', () => {
    const now = new Date('2026-11-27T05:00:00Z');
    assert.equal(localMidnight('UTC', now, 0).toISOString(), '2026-11-27T00:00:00.000Z');
    // 10:30 in Kolkata (UTC+5:30): its midnight was 18:30 UTC the day before.
    assert.equal(localMidnight('Asia/Kolkata', now, 0).toISOString(), '2026-11-26T18:30:00.000Z');
    // Still the 26th in New York (22:00 EST).
    assert.equal(localMidnight('America/New_York', new Date('2026-11-27T03:00:00Z'), 0).toISOString(), '2026-11-26T05:00:00.000Z');
    // Paris moves to summer time on 29 March 2026: that day began at UTC+1, as did 27 March, six days before 2 April (UTC+2).
    const afterChange = new Date('2026-03-29T12:00:00Z');
    assert.equal(localMidnight('Europe/Paris', afterChange, 0).toISOString(), '2026-03-28T23:00:00.000Z');
    assert.equal(localMidnight('Europe/Paris', new Date('2026-04-02T12:00:00Z'), 6).toISOString(), '2026-03-26T23:00:00.000Z');
    assert.equal(localMidnight('Europe/Paris', new Date('2026-04-02T12:00:00Z'), 0).toISOString(), '2026-04-01T22:00:00.000Z');
  });

  test('today, 7 and 30 days count today; explicit from/to win', () => {
    const now = new Date('2026-11-27T05:00:00Z');
    const period = (input: Record<string, string>) => resolvePeriod(overviewQuerySchema.parse(input), now);
    assert.deepEqual(period({ period: 'today', time_zone: 'Asia/Kolkata' }), { from: new Date('2026-11-26T18:30:00Z'), to: now });
    assert.deepEqual(period({ period: '7d' }), { from: new Date('2026-11-21T00:00:00Z'), to: now });
    assert.deepEqual(period({}), { from: new Date('2026-10-29T00:00:00Z'), to: now });
    assert.deepEqual(period({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }), {
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
    });
  });

  test('a bad time zone, or a period with from/to, or from after to, does not parse', () => {
    for (const input of [
      { time_zone: 'Mars/Olympus' },
      { period: 'today', from: '2026-11-01T00:00:00Z' },
      { to: '2026-11-01T00:00:00Z' },
      { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      { period: '90d' },
    ]) {
      assert.equal(overviewQuerySchema.safeParse(input).success, false, JSON.stringify(input));
    }
  });

  test('a period splits into UTC days, hours and quarter hours (added or taken away) and raw minutes up to now, bucket by bucket', () => {
    const at = (iso: string) => new Date(iso);
    const show = (pieces: ReturnType<typeof splitPeriod>) =>
      pieces.map(
        (piece) =>
          `${piece.bucket} ${piece.sign > 0 ? '+' : '-'}${piece.source} ${piece.from.toISOString().slice(5, 16)}/${piece.to.toISOString().slice(5, 16)}`,
      );
    // 30 days from midnight in Kolkata, one bucket: the first half hour in quarter hours, the evening in
    // hours, 29 whole days, today's first 5 hours, now's partial quarter hour.
    assert.deepEqual(show(splitPeriod(at('2026-10-28T18:30:00Z'), at('2026-11-27T05:10:00Z'))), [
      '0 +quarter 10-28T18:30/10-28T19:00',
      '0 +hour 10-28T19:00/10-29T00:00',
      '0 +day 10-29T00:00/11-27T00:00',
      '0 +hour 11-27T00:00/11-27T05:00',
      '0 +raw 11-27T05:00/11-27T05:10',
    ]);
    // Late in a UTC day, the day less its remaining hours costs fewer rows than 20 hours.
    assert.deepEqual(show(splitPeriod(at('2026-11-26T00:00:00Z'), at('2026-11-27T20:10:00Z'))), [
      '0 +day 11-26T00:00/11-28T00:00',
      '0 -hour 11-27T20:00/11-28T00:00',
      '0 +raw 11-27T20:00/11-27T20:10',
    ]);
    // Within one quarter hour: all raw.
    assert.deepEqual(show(splitPeriod(at('2026-11-27T05:01:00Z'), at('2026-11-27T05:10:00Z'))), ['0 +raw 11-27T05:01/11-27T05:10']);
    // By Paris days (midnight at 23:00 UTC): each is its UTC day less the last hour, plus the day before's last hour.
    const parisFrom = at('2026-11-24T23:00:00Z');
    const paris = splitPeriod(
      parisFrom,
      at('2026-11-27T05:10:00Z'),
      bucketStarts(parisFrom, at('2026-11-27T05:10:00Z'), 'day', 'Europe/Paris'),
    );
    assert.deepEqual(show(paris), [
      '0 +hour 11-24T23:00/11-25T00:00',
      '0 +day 11-25T00:00/11-26T00:00',
      '0 -hour 11-25T23:00/11-26T00:00',
      '1 +hour 11-25T23:00/11-26T00:00',
      '1 +day 11-26T00:00/11-27T00:00',
      '1 -hour 11-26T23:00/11-27T00:00',
      '2 +hour 11-26T23:00/11-27T05:00',
      '2 +raw 11-27T05:00/11-27T05:10',
    ]);
    // By Kolkata days (midnight at 18:30 UTC): the half hours either side of each midnight are quarter hours.
    const kolkataFrom = at('2026-11-25T18:30:00Z');
    const kolkata = splitPeriod(
      kolkataFrom,
      at('2026-11-27T05:10:00Z'),
      bucketStarts(kolkataFrom, at('2026-11-27T05:10:00Z'), 'day', 'Asia/Kolkata'),
    );
    assert.deepEqual(show(kolkata), [
      '0 +quarter 11-25T18:30/11-25T19:00',
      '0 +hour 11-25T19:00/11-26T00:00',
      '0 +day 11-26T00:00/11-27T00:00',
      '0 -quarter 11-26T18:30/11-26T19:00',
      '0 -hour 11-26T19:00/11-27T00:00',
      '1 +quarter 11-26T18:30/11-26T19:00',
      '1 +hour 11-26T19:00/11-27T05:00',
      '1 +raw 11-27T05:00/11-27T05:10',
    ]);
  });

  test('in every zone, by days and by hours, only the minutes after the last quarter hour are counted from the rows', () => {
    const now = new Date('2026-11-27T05:10:00Z');
    for (const zone of [
      'UTC',
      'Europe/Paris',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'Pacific/Chatham',
      'America/St_Johns',
      'Australia/Eucla',
    ]) {
      for (const [interval, period] of [
        ['day', '30d'],
        ['hour', 'today'],
      ] as const) {
        const { from, to } = resolvePeriod({ period, time_zone: zone }, now);
        const starts = bucketStarts(from, to, interval, zone);
        const pieces = splitPeriod(from, to, starts);
        const raw = pieces.filter((piece) => piece.source === 'raw');
        assert.deepEqual(
          raw.map((piece) => [piece.from.toISOString(), piece.to.toISOString()]),
          [['2026-11-27T05:00:00.000Z', '2026-11-27T05:10:00.000Z']],
          `${zone} by ${interval}`,
        );
        // Roll-up rows per tuple: a local day overlaps two UTC days, each read as at most a day row, 12 hours
        // and 2 quarter hours; a local hour overlaps two UTC hours, each at most an hour row and 2 quarter hours.
        const unitMs = { day: 86_400_000, hour: 3_600_000, quarter: 900_000, raw: Number.POSITIVE_INFINITY };
        const rows = pieces.reduce((sum, piece) => sum + (piece.to.getTime() - piece.from.getTime()) / unitMs[piece.source], 0);
        const perBucket = interval === 'day' ? 2 * (1 + 12 + 2) : 2 * (1 + 2);
        assert.ok(rows <= perBucket * starts.length, `${zone} by ${interval}: ${rows} rows for ${starts.length} buckets`);
      }
    }
  });

  test('buckets begin at the hours and midnights of the person’s clock, across clock changes', () => {
    const at = (iso: string) => new Date(iso);
    const starts = (from: string, to: string, interval: 'hour' | 'day', zone: string) =>
      bucketStarts(at(from), at(to), interval, zone).map((start) => start.toISOString());
    assert.deepEqual(starts('2026-11-26T18:30:00Z', '2026-11-26T21:10:00Z', 'hour', 'Asia/Kolkata'), [
      '2026-11-26T18:30:00.000Z',
      '2026-11-26T19:30:00.000Z',
      '2026-11-26T20:30:00.000Z',
    ]);
    // Kathmandu is UTC+5:45.
    assert.deepEqual(starts('2026-11-26T18:15:00Z', '2026-11-26T19:20:00Z', 'hour', 'Asia/Kathmandu'), [
      '2026-11-26T18:15:00.000Z',
      '2026-11-26T19:15:00.000Z',
    ]);
    // New York's clock goes back on 1 November 2026: that day has 25 hours, 01:00 twice.
    const fallBack = starts('2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 'hour', 'America/New_York');
    assert.equal(fallBack.length, 25);
    assert.deepEqual(starts('2026-10-30T04:00:00Z', '2026-11-02T06:00:00Z', 'day', 'America/New_York'), [
      '2026-10-30T04:00:00.000Z',
      '2026-10-31T04:00:00.000Z',
      '2026-11-01T04:00:00.000Z',
      '2026-11-02T05:00:00.000Z',
    ]);
    // Paris goes forward on 29 March 2026: a 23-hour day.
    assert.deepEqual(starts('2026-03-28T23:00:00Z', '2026-03-30T12:00:00Z', 'day', 'Europe/Paris'), [
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
    ]);
    // An explicit start inside a day: its first bucket is cut there.
    assert.deepEqual(starts('2026-11-26T15:20:00Z', '2026-11-27T02:00:00Z', 'day', 'UTC'), [
      '2026-11-26T15:20:00.000Z',
      '2026-11-27T00:00:00.000Z',
    ]);
  });
});
