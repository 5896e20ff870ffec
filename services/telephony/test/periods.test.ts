import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { overviewQuerySchema } from '@voice/proto';
import { localMidnight, resolvePeriod } from '../src/domain/periods.js';
import { splitHours } from '../src/store/overview.js';

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

  test('a period splits into whole UTC hours for the roll-up and raw edges', () => {
    const split = splitHours(new Date('2026-11-26T18:30:00Z'), new Date('2026-11-27T05:10:00Z'));
    assert.deepEqual(split.hours, [new Date('2026-11-26T19:00:00Z'), new Date('2026-11-27T05:00:00Z')]);
    assert.deepEqual(split.head, [new Date('2026-11-26T18:30:00Z'), new Date('2026-11-26T19:00:00Z')]);
    assert.deepEqual(split.tail, [new Date('2026-11-27T05:00:00Z'), new Date('2026-11-27T05:10:00Z')]);
    // Within one hour: all raw, no roll-up.
    const inside = splitHours(new Date('2026-11-27T05:01:00Z'), new Date('2026-11-27T05:10:00Z'));
    assert.deepEqual(inside.head, [new Date('2026-11-27T05:01:00Z'), new Date('2026-11-27T05:10:00Z')]);
    assert.equal(inside.hours[0].getTime(), inside.hours[1].getTime());
  });
});
