import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideOutcome } from '../src/domain/outcome.js';
import { maxAttempts, nextRetryDelayMs, parseRetrySchedule, productionRetryScheduleMs } from '../src/domain/retry-schedule.js';
import { envSchema } from '../src/env.js';

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

describe('retry schedule', () => {
  test('production waits are 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h: ten attempts over about three days', () => {
    assert.deepEqual(productionRetryScheduleMs, [
      5 * second,
      5 * minute,
      30 * minute,
      2 * hour,
      5 * hour,
      10 * hour,
      14 * hour,
      20 * hour,
      24 * hour,
    ]);
    assert.equal(maxAttempts(productionRetryScheduleMs), 10);
    const totalMs = productionRetryScheduleMs.reduce((sum, wait) => sum + wait, 0);
    assert.ok(totalMs > 3 * day && totalMs < 3.5 * day, `total ${totalMs / hour} h`);
  });

  test('the environment defaults to the production schedule and accepts a shortened one', () => {
    assert.deepEqual(envSchema.parse({}).WEBHOOK_RETRY_SCHEDULE_MS, productionRetryScheduleMs);
    assert.deepEqual(envSchema.parse({ WEBHOOK_RETRY_SCHEDULE_MS: '50, 100' }).WEBHOOK_RETRY_SCHEDULE_MS, [50, 100]);
    assert.equal(envSchema.safeParse({ WEBHOOK_RETRY_SCHEDULE_MS: '50,soon' }).success, false);
    assert.throws(() => parseRetrySchedule('-1'));
  });

  test('the wait after the n-th failed attempt is the n-th entry, and none after the last', () => {
    assert.equal(nextRetryDelayMs(productionRetryScheduleMs, 1), 5 * second);
    assert.equal(nextRetryDelayMs(productionRetryScheduleMs, 4), 2 * hour);
    assert.equal(nextRetryDelayMs(productionRetryScheduleMs, 9), 24 * hour);
    assert.equal(nextRetryDelayMs(productionRetryScheduleMs, 10), null);
  });
});

describe('attempt outcome', () => {
  const rules = { retryScheduleMs: productionRetryScheduleMs, disableAfterFailingMs: 5 * day };
  const now = new Date('2026-03-01T00:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);

  test('any 2xx succeeds', () => {
    assert.deepEqual(decideOutcome({ kind: 'response', status: 204 }, 3, ago(hour), now, rules), { kind: 'succeeded' });
  });

  test('410 disables at once, even on the first attempt', () => {
    assert.deepEqual(decideOutcome({ kind: 'response', status: 410 }, 1, now, now, rules), { kind: 'gone' });
  });

  test('other statuses and network errors retry on the schedule', () => {
    assert.deepEqual(decideOutcome({ kind: 'response', status: 500 }, 1, now, now, rules), { kind: 'retry', delayMs: 5 * second });
    assert.deepEqual(decideOutcome({ kind: 'response', status: 301 }, 2, ago(minute), now, rules), { kind: 'retry', delayMs: 5 * minute });
    assert.deepEqual(decideOutcome({ kind: 'error' }, 3, ago(hour), now, rules), { kind: 'retry', delayMs: 30 * minute });
  });

  test('after the last attempt the delivery is a dead letter', () => {
    assert.deepEqual(decideOutcome({ kind: 'response', status: 503 }, 10, ago(3 * day), now, rules), {
      kind: 'dead',
      disableEndpoint: false,
    });
  });

  test('an endpoint failing for five days is disabled', () => {
    assert.deepEqual(decideOutcome({ kind: 'error' }, 2, ago(5 * day), now, rules), { kind: 'dead', disableEndpoint: true });
    assert.deepEqual(decideOutcome({ kind: 'error' }, 2, ago(5 * day - minute), now, rules), { kind: 'retry', delayMs: 5 * minute });
  });
});
