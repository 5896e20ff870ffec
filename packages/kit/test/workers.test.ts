import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { parseEnv } from '../src/env.js';
import { startWorkers, workersSchema } from '../src/workers.js';

const schema = z.object({ WORKERS: workersSchema(['dialer', 'outbox']) });

describe('WORKERS', () => {
  test('all by default, none, or a list of the kinds the deployable has', () => {
    assert.deepEqual([...parseEnv(schema, {}).WORKERS], ['dialer', 'outbox']);
    assert.deepEqual([...parseEnv(schema, { WORKERS: 'all' }).WORKERS], ['dialer', 'outbox']);
    assert.deepEqual([...parseEnv(schema, { WORKERS: 'none' }).WORKERS], []);
    assert.deepEqual([...parseEnv(schema, { WORKERS: ' outbox , dialer' }).WORKERS], ['outbox', 'dialer']);
  });

  test('an unknown kind is refused, naming it and the kinds there are', () => {
    assert.throws(
      () => parseEnv(schema, { WORKERS: 'dialer,sequences' }),
      /WORKERS: unknown worker kind "sequences"; use all, none or a list of: dialer, outbox/,
    );
    assert.throws(() => parseEnv(schema, { WORKERS: ',' }), /WORKERS: empty; use all, none/);
  });
});

describe('startWorkers', () => {
  test('starts the enabled kinds in order and closes them in reverse when the app closes', async () => {
    const log: string[] = [];
    const work = (name: string) => () => {
      log.push(`start ${name}`);
      return { close: async () => void log.push(`close ${name}`) };
    };
    const hooks: Array<() => Promise<void>> = [];
    const app = { addHook: (_name: 'onClose', hook: () => Promise<void>) => hooks.push(hook) };
    await startWorkers(app, new Set(['outbox', 'sweep'] as const), {
      outbox: work('outbox'),
      dialer: work('dialer'),
      sweep: work('sweep'),
    });
    assert.deepEqual(log, ['start outbox', 'start sweep']);
    for (const hook of hooks) await hook();
    assert.deepEqual(log, ['start outbox', 'start sweep', 'close sweep', 'close outbox']);
  });
});
