// The overview's pieces that need no service: the list links (one module builds every list address), the
// days of a period in the person's time zone, and how figures and their changes read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { overviewBounds, overviewPeriodOf } from '../src/domain/overview.js';
import { formatterFor } from '../src/views/format.js';
import { approvalsListHref, callHref, callsListHref, daysOf, leadsHref, messagesListHref } from '../src/views/list-links.js';
import { change, duration } from '../src/views/overview.js';

describe('the overview’s links, days and words', () => {
  test('list links carry their filters in the lists’ order, leave out what is not set, and escape', () => {
    assert.equal(callsListHref(), '/dashboard/calls');
    assert.equal(
      callsListHref({ to: '2026-11-27', from: '2026-11-21', outcome: 'booked', direction: 'inbound', status: 'completed' }),
      '/dashboard/calls?direction=inbound&outcome=booked&status=completed&from=2026-11-21&to=2026-11-27',
    );
    assert.equal(callsListHref({ lead_id: 'lead_1', number: '+1415' }), '/dashboard/calls?lead_id=lead_1&number=%2B1415');
    assert.equal(callHref('call_abc'), '/dashboard/calls/call_abc');
    assert.equal(
      messagesListHref({ status: 'delivered', direction: 'outbound', from: '2026-11-27', to: '2026-11-27' }),
      '/dashboard/messages?direction=outbound&status=delivered&from=2026-11-27&to=2026-11-27',
    );
    assert.equal(approvalsListHref({ status: 'pending' }), '/dashboard/approvals?status=pending');
    assert.equal(leadsHref({ lead: 'lead_1' }), '/dashboard/leads/lead_1');
    assert.equal(
      leadsHref({ leads: 'created', days: { from: '2026-11-21', to: '2026-11-27' } }),
      '/dashboard/leads?from=2026-11-21&to=2026-11-27',
    );
    assert.equal(
      leadsHref({ leads: 'qualified', days: { from: '2026-11-21', to: '2026-11-27' } }),
      undefined,
      'the list filters by creation day, not by the day a lead was qualified',
    );
  });

  test('a period’s days are the person’s, both included', () => {
    const now = new Date('2026-11-27T20:00:00Z');
    // 20:00 UTC is already the 28th in Kolkata (01:30) and still the 27th in New York (15:00).
    assert.deepEqual(overviewBounds('today', 'Asia/Kolkata', now).days, { from: '2026-11-28', to: '2026-11-28' });
    assert.deepEqual(overviewBounds('7d', 'America/New_York', now).days, { from: '2026-11-21', to: '2026-11-27' });
    assert.deepEqual(overviewBounds('30d', 'UTC', now).days, { from: '2026-10-29', to: '2026-11-27' });
    // A period ending at midnight ends the day before.
    assert.deepEqual(daysOf('UTC', new Date('2026-11-20T00:00:00Z'), new Date('2026-11-27T00:00:00Z')), {
      from: '2026-11-20',
      to: '2026-11-26',
    });
  });

  test('the previous period is as long, just before: yesterday until this time, or the days before', () => {
    const now = new Date('2026-11-27T20:00:00Z');
    const today = overviewBounds('today', 'Europe/Paris', now);
    assert.equal(today.current.from.toISOString(), '2026-11-26T23:00:00.000Z');
    assert.deepEqual(
      [today.previous.from.toISOString(), today.previous.to.toISOString()],
      ['2026-11-25T23:00:00.000Z', '2026-11-26T20:00:00.000Z'],
    );
    assert.equal(today.interval, 'hour');
    const week = overviewBounds('7d', 'Europe/Paris', now);
    assert.deepEqual(
      [week.current.from.toISOString(), week.previous.from.toISOString()],
      ['2026-11-20T23:00:00.000Z', '2026-11-13T23:00:00.000Z'],
    );
    assert.equal(week.previous.to.toISOString(), '2026-11-20T20:00:00.000Z');
    assert.equal(week.interval, 'day');
  });

  test('the period is today, 7d or 30d (7d when left out); anything else is refused', () => {
    assert.equal(overviewPeriodOf({}), '7d');
    assert.equal(overviewPeriodOf({ period: '' }), '7d');
    assert.equal(overviewPeriodOf({ period: 'today' }), 'today');
    for (const period of ['90d', 'TODAY', ['7d'], '__proto__']) assert.throws(() => overviewPeriodOf({ period }), /Choose a period/);
  });

  test('durations and changes read as words', () => {
    assert.equal(duration(null), '—');
    assert.equal(duration(45.4), '45 s');
    assert.equal(duration(151), '2 min 31 s');
    assert.equal(duration(4_334_820, formatterFor({ locale: 'en', timeZone: 'UTC' })), '1,204 h 7 min');
    assert.equal(change(12, 10, 'the 7 days before'), 'Up 20% on the 7 days before.');
    assert.equal(change(5, 10, 'yesterday by this time'), 'Down 50% on yesterday by this time.');
    assert.equal(change(3, 0, 'the 7 days before'), 'None the 7 days before.');
    assert.equal(change(0.8, 0.75, 'the 7 days before', 'points'), 'Up 5 points on the 7 days before.');
    assert.equal(change(1, undefined, 'the 7 days before'), '');
  });
});
