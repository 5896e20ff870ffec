// Shutdown of a kit HTTP app: connections that never sent a request are closed at once (Node would hold
// close() until headersTimeout ends them), and a request being answered still gets its answer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createHttpApp } from '../src/http.js';

describe('shutdown', () => {
  // The limit is for a hang: without the fix, close() never ends (the server's own timeouts are off below).
  test('a connection that sent no request is closed by close(); a request in flight is answered first, then its connection closed soon after', {
    timeout: 120_000,
  }, async () => {
    const app = await createHttpApp({ name: 'test', logger: pino({ level: 'silent' }), readiness: {} });
    // Node's own clean-up of connections that send nothing (after headersTimeout) is off, so only close() can end one.
    app.server.headersTimeout = 0;
    app.server.requestTimeout = 0;
    // And an idle keep-alive connection would wait forever: only the shutdown's short keep-alive ends the busy one after its answer.
    app.server.keepAliveTimeout = 0;
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      app.get('/slow', async () => {
        resolve();
        await new Promise<void>((done) => {
          release = done;
        });
        return { ok: true };
      });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const open = async () => {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    };
    const silent: Socket = await open();
    const silentClosed = once(silent, 'close');
    const busy = await open();
    let answer = '';
    busy.on('data', (chunk) => {
      answer += chunk;
    });
    const busyEnded = once(busy, 'end');
    busy.write('GET /slow HTTP/1.1\r\nhost: test\r\n\r\n');
    await started;

    const closed = app.close();
    // The silent connection goes without waiting for headersTimeout (60 s and more); the slow request is still running.
    await silentClosed;
    assert.equal(answer, '');
    release();
    await busyEnded;
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /\{"ok":true\}$/);
  });
});
