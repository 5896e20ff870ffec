import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { batched } from '../src/delivery/batch.js';

describe("batched calls (the worker's reads and writes)", () => {
  test('the calls of one turn go in one run, each resolving with its own result', async () => {
    const runs: number[][] = [];
    const double = batched(async (inputs: number[]) => {
      runs.push(inputs);
      return inputs.map((input) => input * 2);
    });
    const results = await Promise.all([double(1), double(2), double(3)]);
    assert.deepEqual(results, [2, 4, 6]);
    assert.deepEqual(runs, [[1, 2, 3]]);
    assert.equal(await double(4), 8);
    assert.deepEqual(runs, [[1, 2, 3], [4]]);
  });

  test('a batch is split at its size limit', async () => {
    const runs: number[][] = [];
    const same = batched(async (inputs: number[]) => {
      runs.push(inputs);
      return inputs;
    }, 2);
    assert.deepEqual(await Promise.all([same(1), same(2), same(3)]), [1, 2, 3]);
    assert.deepEqual(runs, [[1, 2], [3]]);
  });

  test('a failed run rejects every call of its batch, and the next calls run anew', async () => {
    let fail = true;
    const maybe = batched(async (inputs: number[]) => {
      if (fail) throw new Error('database down');
      return inputs;
    });
    const settled = await Promise.allSettled([maybe(1), maybe(2)]);
    assert.deepEqual(
      settled.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    fail = false;
    assert.equal(await maybe(3), 3);
  });
});
