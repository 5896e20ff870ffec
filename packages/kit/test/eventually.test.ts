// kit's `eventually`, the wait every integration test uses for work off the request path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../src/testing/index.js';

test('returns the first value that is not undefined or false', async () => {
  let tries = 0;
  assert.equal(await eventually('the third try', () => (++tries >= 3 ? 'done' : false), { intervalMs: 1 }), 'done');
});

test('a condition never met fails after the deadline, naming the wait, the tries and the last error', async () => {
  await assert.rejects(
    eventually(
      'nothing',
      () => {
        throw new Error('not yet');
      },
      { timeoutMs: 30, intervalMs: 5 },
    ),
    /^Error: timed out after 30 ms \(\d+ tries, the last took \d+ ms\) waiting for nothing; last error not yet$/,
  );
});

test('a try that stalls past the deadline is followed by one more, after the event loop has run', async () => {
  // What the stalled try could not see: a timer that fires while it holds the event loop.
  let arrived = false;
  setTimeout(() => {
    arrived = true;
  }, 5);
  let tries = 0;
  const value = await eventually(
    'the timer',
    () => {
      tries += 1;
      const until = Date.now() + 60;
      while (Date.now() < until) {
        // A synchronous stall longer than the whole wait.
      }
      return arrived;
    },
    { timeoutMs: 20, intervalMs: 1 },
  );
  assert.equal(value, true);
  assert.equal(tries, 2, 'the stalled try, then one after the timer ran');
});
