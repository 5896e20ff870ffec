import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseEnv } from '@voice/kit';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import { envSchema, type LeadsEnv } from '../src/env.js';
import { createStepQueue, type StepQueue, scheduleStep, stepJobId } from '../src/sequences/queue.js';

let ctx: TestContext;
let env: LeadsEnv;
let queue: StepQueue;

before(async () => {
  ctx = await createTestContext();
  env = parseEnv(envSchema, ctx.env);
  queue = createStepQueue(env);
});
after(async () => {
  await queue.close();
  await ctx.cleanup();
});

test('sequence step jobs are kept an hour once completed and by count once failed, so Redis does not grow with traffic', async () => {
  await scheduleStep(queue, env, { org_id: 'org_12345678', enrollment_id: 'enr_12345678', step: 0, delaySeconds: 3_600 });
  const job = await queue.getJob(stepJobId('enr_12345678', 0));
  assert.deepEqual(job?.opts.removeOnComplete, { age: 3_600 });
  assert.deepEqual(job?.opts.removeOnFail, { count: 5_000 });
});
