import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import pg from 'pg';
import { everyInterval, type IntervalJob } from '../src/interval.js';
import { eventually, recordingLogger, testServerUrls } from '../src/testing/index.js';

// Kit's interval jobs: per replica, and once across replicas (two helpers in this process, each with its own
// Postgres connection, stand for two replicas) on the shared Postgres, under a job name of this run's own.

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Counts passes, and how many run at once at most. */
function passCounter() {
  const counter = { passes: 0, running: 0, mostAtOnce: 0, byReplica: new Map<string, number>() };
  const pass = async (replica: string, work: () => Promise<void>) => {
    counter.running++;
    counter.mostAtOnce = Math.max(counter.mostAtOnce, counter.running);
    try {
      await work();
    } finally {
      counter.running--;
      counter.passes++;
      counter.byReplica.set(replica, (counter.byReplica.get(replica) ?? 0) + 1);
    }
  };
  return { counter, pass };
}

/** One replica of a cluster-wide job on the shared Postgres, each pass counted under the replica's name. */
function startReplica(name: string, replica: string, pass: ReturnType<typeof passCounter>['pass'], work: () => Promise<void>): IntervalJob {
  return everyInterval({
    name,
    everyMs: 5,
    scope: 'cluster',
    databaseUrl: testServerUrls.postgres,
    runAtStart: true,
    logger: recordingLogger().logger,
    run: () => pass(replica, work),
  });
}

/** Lets the event loop turn a few times, so a pass that ran too early would show. */
const turns = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('everyInterval', () => {
  test('close() resolves only once the pass in progress has finished', async () => {
    const started = gate();
    const release = gate();
    let finished = false;
    const job = everyInterval({
      name: 'test.close',
      everyMs: 10,
      scope: 'replica',
      runAtStart: true,
      logger: recordingLogger().logger,
      run: async () => {
        started.open();
        await release.opened;
        finished = true;
      },
    });
    await started.opened;
    let closed = false;
    const closing = job.close().then(() => {
      closed = true;
    });
    await turns();
    assert.equal(closed, false, 'close() waits for the running pass');
    release.open();
    await closing;
    assert.equal(finished, true);
  });

  test('passes never overlap, even when one lasts longer than the interval', async () => {
    const { counter, pass } = passCounter();
    const job = everyInterval({
      name: 'test.overlap',
      everyMs: 1,
      scope: 'replica',
      logger: recordingLogger().logger,
      run: () => pass('one', () => new Promise((resolve) => setTimeout(resolve, 20))),
    });
    await eventually('five passes', () => counter.passes >= 5);
    await job.close();
    assert.equal(counter.mostAtOnce, 1);
  });

  test('a failing pass is logged and the next one runs', async () => {
    const { logger, lines } = recordingLogger();
    let passes = 0;
    const job = everyInterval({
      name: 'test.failing',
      everyMs: 5,
      scope: 'replica',
      logger,
      run: async () => {
        passes++;
        if (passes === 1) throw new Error('database down');
      },
    });
    await eventually('a pass after the failing one', () => passes >= 2);
    await job.close();
    assert.deepEqual(lines.slice(0, 1), ['interval job failed; the next pass retries']);
  });

  test("scope 'cluster': two replicas never run a pass at once, one runs every interval, the other takes over when it stops", async () => {
    const name = `test.cluster.${randomBytes(4).toString('hex')}`;
    const { counter, pass } = passCounter();
    const start = (replica: string) => startReplica(name, replica, pass, () => new Promise((resolve) => setTimeout(resolve, 5)));
    const replicas = { a: start('a'), b: start('b') };
    try {
      await eventually('ten passes between the two replicas', () => counter.passes >= 10);
      const leader = (counter.byReplica.get('a') ?? 0) > 0 ? 'a' : 'b';
      const other = leader === 'a' ? 'b' : 'a';
      assert.equal(counter.byReplica.get(other) ?? 0, 0, 'one replica leads while it runs');
      await replicas[leader].close();
      await eventually(`the other replica (${other}) takes over`, () => (counter.byReplica.get(other) ?? 0) >= 3);
      assert.equal(counter.mostAtOnce, 1, 'never two passes at once');
    } finally {
      await Promise.all([replicas.a.close(), replicas.b.close()]);
    }
  });

  test("scope 'cluster': when the leader's session ends, a replica leads again", async () => {
    const name = `test.cluster.${randomBytes(4).toString('hex')}`;
    const { counter, pass } = passCounter();
    const start = (replica: string) => startReplica(name, replica, pass, async () => {});
    const replicas = [start('a'), start('b')];
    const admin = new pg.Client({ connectionString: testServerUrls.postgres });
    await admin.connect();
    try {
      await eventually('a replica leads', () => counter.passes >= 2);
      // As when a replica crashes: its session ends, and Postgres releases its advisory lock.
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(locks.pid) AS ended FROM pg_locks locks JOIN pg_stat_activity activity USING (pid)
         WHERE locks.locktype = 'advisory' AND locks.granted AND activity.application_name = $1`,
        [`interval:${name}`],
      );
      assert.deepEqual(rows, [{ ended: true }], 'one session held the lock');
      const before = counter.passes;
      await eventually('passes go on under a new lock', () => counter.passes >= before + 3);
      assert.equal(counter.mostAtOnce, 1);
    } finally {
      await admin.end();
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });
});
