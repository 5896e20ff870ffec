import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Job, Queue, type Worker } from 'bullmq';
import { type BullmqWorker, startBullmqWorker } from '../src/bullmq.js';
import { withDeadline } from '../src/deadline.js';
import type { Logger } from '../src/logger.js';
import { bullmqOptions } from '../src/redis.js';
import { eventually, hasProgram, type OwnServer, recordingLogger, startOwnRedis } from '../src/testing/index.js';

// Kit's supervised BullMQ worker on a redis-server of the test's own. The wedge BullMQ 6.7 gets into when a
// Redis Cluster primary dies under a worker (its watchdog resets the blocking connection, and the reset
// never finishes: taskforcesh/bullmq#4138) is made here on purpose, on one server: the server is paused
// (SIGSTOP) while the worker blocks on it, so its BZPOPMIN goes unanswered and BullMQ's watchdog resets the
// connection; and that connection's disconnect is made to never end, as the Cluster client's does. The
// worker's main loop is then parked for good, as in the failover.

const missing = !(await hasProgram('redis-server')) ? 'redis-server is not installed' : false;

interface Blocking {
  disconnect(): unknown;
  /** ioredis's commands sent and not yet answered (a Denque). */
  commandQueue: { toArray(): Array<{ command: { name: string } }> };
}

/**
 * Wedges the worker: pauses the server while the worker's BZPOPMIN waits on it, until BullMQ's own watchdog
 * (drainDelay + 1 s) has given up on the read and tried to reset the connection, whose disconnect is made to
 * never end. A read the server answered just before the pause (its 1 s timeout) leaves the worker waiting on
 * its other connection instead, where no watchdog runs: then the server is resumed and the wedge tried again
 * on the next read. Each step waits for a state, not for a time, so a loaded machine only makes it slower.
 * Returns the undo.
 */
async function wedge(server: OwnServer, worker: Worker): Promise<() => void> {
  const backend = (worker as unknown as { backend: { blockingClient: Promise<Blocking> } }).backend;
  const blocking = await backend.blockingClient;
  const disconnect = blocking.disconnect;
  let resetTried = false;
  blocking.disconnect = () => {
    resetTried = true;
  };
  const blockingRead = () => blocking.commandQueue.toArray().find((sent) => sent.command.name === 'bzpopmin')?.command;
  while (!resetTried) {
    const read = await eventually('the worker blocking on BZPOPMIN', blockingRead, { timeoutMs: 60_000, intervalMs: 10 });
    server.pause();
    try {
      await eventually("BullMQ's watchdog giving up on the read, or the read answered", () => resetTried || blockingRead() !== read, {
        timeoutMs: 60_000,
      });
    } finally {
      server.resume();
    }
  }
  return () => {
    blocking.disconnect = disconnect;
    blocking.disconnect();
  };
}

describe('a supervised BullMQ worker (kit startBullmqWorker)', { skip: missing }, () => {
  let server: OwnServer;
  let env: { REDIS_URL: string; REDIS_PREFIX: string };
  /** Run after the tests, in order: the wedges undone, then every supervised worker closed (also after a failure). */
  const undo: Array<() => unknown> = [];

  before(async () => {
    server = await startOwnRedis();
    env = { REDIS_URL: server.url, REDIS_PREFIX: `test:${randomBytes(4).toString('hex')}:` };
  });
  after(async () => {
    for (const step of undo) await withDeadline(Promise.resolve(step()), 60_000, 'a clean-up step did not finish');
    await server?.close();
  });

  /** A supervised worker on `queue` that has processed one job, wedged; and a Queue to add to it. */
  const startWedged = async (name: string) => {
    const { logger, lines } = recordingLogger();
    const processed: Job[] = [];
    const supervised: BullmqWorker = startBullmqWorker({
      queue: name,
      processor: async (job) => {
        processed.push(job);
      },
      env,
      logger,
      // BullMQ's watchdog gives up on a BZPOPMIN after drainDelay + 1 s: 2 s here.
      options: { drainDelay: 1 },
      intervalMs: 250,
      stuckAfterMs: 3_000,
      closeTimeoutMs: 3_000,
    });
    const queue = new Queue(name, bullmqOptions(env));
    await queue.add('first', {});
    await eventually('the first job processed', () => processed.length === 1);
    const wedged = supervised.worker;
    undo.push(await wedge(server, wedged));
    return { supervised, wedged, queue, processed, lines };
  };

  test('a worker wedged on its blocking connection is replaced: a job added afterwards is processed, and close() returns', async () => {
    const { supervised, wedged: first, queue, processed, lines } = await startWedged('wedged');
    undo.push(() => supervised.close());
    try {
      await queue.add('second', {});
      await eventually('the job added after the wedge processed', () => processed.length === 2, { timeoutMs: 30_000 });
      const second = processed[1] as Job;
      assert.ok(!second.token?.startsWith(`${first.id}:`), 'the wedged worker did not take it: its replacement did');
      assert.notEqual(supervised.worker, first);
      assert.ok(supervised.replacements >= 1);
      assert.ok(
        lines.some((line) => line.includes('stopped fetching while jobs were ready')),
        'the replacement is logged',
      );

      await withDeadline(supervised.close(), 10_000, 'close() did not return');
    } finally {
      await queue.close();
    }
  });

  test('close() of a wedged worker returns within its bound, though BullMQ close never would', async () => {
    const { supervised, queue, lines } = await startWedged('wedged-at-shutdown');
    undo.push(() => supervised.close());
    try {
      const startedAt = Date.now();
      // closeTimeoutMs (3 s), then 2 s more once the blocking connection is disconnected underneath.
      await withDeadline(supervised.close(), 15_000, 'close() did not return');
      assert.ok(Date.now() - startedAt >= 3_000, 'close() waited for the worker before giving up on it');
      assert.ok(
        lines.some((line) => line.includes('did not close in time')),
        'the forced close is logged',
      );
    } finally {
      await queue.close();
    }
  });

  test("a failed attempt is logged with the queue, the job and the caller's fields; an expected one is not", async () => {
    const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => logged.push({ fields, message }),
      error: () => {},
      info: () => {},
      debug: () => {},
    } as unknown as Logger;
    class RetryLater extends Error {}
    const name = 'failing';
    const supervised = startBullmqWorker<{ expected: boolean; record: string }>({
      queue: name,
      processor: async (job) => {
        throw job.data.expected ? new RetryLater('later') : new Error('carrier down');
      },
      env,
      logger,
      failures: { fields: (job) => ({ record_id: job.data.record }), expected: (error) => error instanceof RetryLater },
    });
    undo.push(() => supervised.close());
    const queue = new Queue(name, bullmqOptions(env));
    try {
      const expected = await queue.add('expected', { expected: true, record: 'rec_1' });
      const failing = await queue.add('failing', { expected: false, record: 'rec_2' });
      // One job at a time (concurrency 1), in order: the expected failure has been handled once the other is logged.
      await eventually('the unexpected failure logged', () => logged.some((line) => line.message === 'BullMQ job failed'));
      assert.equal(await expected.getState(), 'failed');
      const failures = logged.filter((line) => line.message === 'BullMQ job failed');
      assert.equal(failures.length, 1, 'only the unexpected failure is logged');
      const [failure] = failures;
      assert.ok(failure);
      assert.deepEqual(
        { ...failure.fields, err: (failure.fields.err as Error).message },
        { err: 'carrier down', queue: name, job_id: failing.id, attempts: 1, record_id: 'rec_2' },
      );
    } finally {
      await queue.close();
    }
  });
});
