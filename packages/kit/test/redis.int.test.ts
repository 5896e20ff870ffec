import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { startOwnRedis, testServerUrls } from '@voice/kit/testing';
import { toApiError } from '../src/errors.js';
import { connectRedis } from '../src/redis.js';

describe('connectRedis', () => {
  test('a first connection attempt that times out does not fail the start: the retry connects', async (t) => {
    // A relay that leaves the first connection unanswered (as a start that holds its event loop past the
    // connect timeout sees it) and forwards the next ones to the real Redis.
    const target = new URL(testServerUrls.redis);
    let attempts = 0;
    const held: Socket[] = [];
    const relay = createServer((client) => {
      attempts++;
      if (attempts === 1) {
        held.push(client);
        return;
      }
      const upstream = connect(Number(target.port || 6379), target.hostname);
      client.pipe(upstream).pipe(client);
      for (const socket of [client, upstream]) socket.on('error', () => {});
      held.push(client, upstream);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const { port } = relay.address() as { port: number };
    t.after(() => {
      for (const socket of held) socket.destroy();
      relay.close();
    });
    const redis = await connectRedis(`redis://127.0.0.1:${port}`, { failFast: true, connectTimeoutMs: 200 });
    t.after(() => redis.disconnect());
    assert.equal(await redis.ping(), 'PONG');
    assert.ok(attempts >= 2, `connected on attempt ${attempts}`);
  });

  test('a Redis that never answers fails the start within the startup timeout, without the password', async (t) => {
    // Accepts connections and never says anything: each attempt times out.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    t.after(async () => {
      silent.close();
    });
    await assert.rejects(
      connectRedis(`redis://user:hunter2@127.0.0.1:${port}`, { failFast: true, connectTimeoutMs: 100, startupTimeoutMs: 600 }),
      (error: Error) => /not ready within 600 ms/.test(error.message) && !error.message.includes('hunter2'),
    );
  });
});

describe('a Redis that cannot serve is a 503, not a 500', () => {
  test('a command past its timeout, and one while Redis is down, become `unavailable`', async (t) => {
    const own = await startOwnRedis();
    t.after(() => own.close());
    const redis = await connectRedis(own.url, { failFast: true, commandTimeoutMs: 50 });
    t.after(() => redis.disconnect());
    const pauser = await connectRedis(own.url);
    t.after(() => pauser.disconnect());

    // Holds every other client's commands for a second: a Redis too busy to answer within the timeout.
    await pauser.call('CLIENT', 'PAUSE', '1000', 'ALL');
    const timedOut = await redis.mget('a', 'b').then(
      () => assert.fail('the paused Redis answered'),
      (error: unknown) => toApiError(error),
    );
    assert.equal(timedOut.code, 'unavailable');
    assert.equal(timedOut.headers['retry-after'], '1');

    await own.stop();
    const down = await redis.get('a').then(
      () => assert.fail('the stopped Redis answered'),
      (error: unknown) => toApiError(error),
    );
    assert.equal(down.code, 'unavailable');
  });
});
