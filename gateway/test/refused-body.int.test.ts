// An oversize body sent without waiting (no `Expect: 100-continue`): the client is still sending when the
// gateway answers 413. The answer must reach it (the connection is read and discarded after the answer,
// nginx's lingering close), whether the client is curl, fetch with a streamed body or a raw socket, and
// straight or through a TCP relay (as docker-proxy or a port-forward is); and the discarding is bounded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '@voice/kit/testing';
import type { ServiceName } from '@voice/proto';
import { createOrgWithKey, Relay, startGateway, type TestGateway } from './support/harness.js';

const MiB = 1024 * 1024;

async function listening(gateway: TestGateway): Promise<string> {
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
}

function curl(args: string[]): Promise<{ status: string; body: string; exitCode: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '-w', '\n%{http_code}', ...args], { maxBuffer: 4 * MiB }, (error, stdout, stderr) => {
      const cut = stdout.lastIndexOf('\n');
      resolve({ body: stdout.slice(0, cut), status: stdout.slice(cut + 1), exitCode: error ? Number(error.code ?? 1) : 0, stderr });
    });
  });
}

interface RawOutcome {
  status: number;
  headers: string;
  body: { error: { code: string; request_id: string } };
  /** How the connection ended: `close` (cleanly, both sides closed) or the socket error's code (a reset). */
  ended: string;
  /** Body bytes the client had handed to its socket when the connection ended. */
  written: number;
  /** Milliseconds from the answer to the end of the connection. */
  lingeredMs: number;
}

/**
 * POSTs over a raw socket and goes on sending the body whatever comes back (the server's FIN included: the
 * socket is half-open): `bodyBytes` in 64 KiB pieces declared with Content-Length, then its own FIN; or,
 * with `forever`, chunked pieces until the connection ends, one per `intervalMs` when set. Resolves once
 * the connection has ended, with the answer and how it ended.
 */
function rawUpload(url: string, key: string, options: { bodyBytes: number } | { forever: true; intervalMs?: number }): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
  const forever = 'forever' in options;
  const head = [
    'POST /api/v1/leads HTTP/1.1',
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${key}`,
    'Content-Type: application/json',
    forever ? 'Transfer-Encoding: chunked' : `Content-Length: ${options.bodyBytes}`,
    '',
    '',
  ].join('\r\n');
  const piece = Buffer.alloc(64 * 1024, 'x');
  const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
  let received = Buffer.alloc(0);
  let answeredAt = 0;
  let written = 0;
  let ended: string | undefined;
  socket.on('data', (data: Buffer) => {
    received = Buffer.concat([received, data]);
    if (!answeredAt && received.includes('\r\n\r\n')) answeredAt = Date.now();
  });
  const done = new Promise<string>((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('close', () => resolve('close'));
  }).then((how) => {
    ended = how;
    return how;
  });
  const sending = (async () => {
    await once(socket, 'connect');
    socket.write(head);
    const total = forever ? Number.POSITIVE_INFINITY : options.bodyBytes;
    while (ended === undefined && written < total) {
      const bytes = forever ? chunk : piece.subarray(0, Math.min(piece.length, total - written));
      written += forever ? piece.length : bytes.length;
      if (!socket.write(bytes)) await Promise.race([once(socket, 'drain'), done]);
      if (forever && options.intervalMs) await Promise.race([new Promise((resolve) => setTimeout(resolve, options.intervalMs)), done]);
    }
    if (ended === undefined) socket.end();
  })().catch(() => {});
  return Promise.all([done, sending]).then(([how]) => {
    const text = received.toString('utf8');
    const split = text.indexOf('\r\n\r\n');
    assert.ok(split > 0, `an answer arrived before the connection ended (${how}): ${JSON.stringify(text)}`);
    const headers = text.slice(0, split);
    return {
      status: Number(headers.split(' ')[1]),
      headers,
      body: JSON.parse(text.slice(split + 4)),
      ended: how,
      written,
      lingeredMs: Date.now() - answeredAt,
    };
  });
}

describe('a body over the limit sent without waiting gets its 413', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let url: string;
  let key: string;
  let dir: string;
  let tenMegabytes: string;

  before(async () => {
    ctx = await createTestContext();
    // Nothing listens for leads: every answer here is the gateway's own.
    gateway = await startGateway(ctx, { LEADS_URL: 'http://127.0.0.1:9' });
    url = await listening(gateway);
    ({ key } = await createOrgWithKey(gateway));
    dir = await mkdtemp(join(tmpdir(), 'refused-body-'));
    tenMegabytes = join(dir, '10MB.json');
    await writeFile(tenMegabytes, `{"name":"${'x'.repeat(10 * 1000 * 1000 - 11)}"}`);
  });
  after(async () => {
    gateway.app.server.closeAllConnections();
    await gateway?.close();
    await ctx?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  const assertEnvelope = (status: number | string, body: string) => {
    assert.equal(Number(status), 413, body);
    assert.equal(JSON.parse(body).error.code, 'payload_too_large');
  };

  test('curl without Expect, with a declared length and chunked, gets the 413 envelope', async () => {
    for (const framing of [[], ['-H', 'Transfer-Encoding: chunked']]) {
      const args = ['-H', 'Expect:', ...framing, '-H', `Authorization: Bearer ${key}`, '-H', 'Content-Type: application/json'];
      const result = await curl([...args, '--data-binary', `@${tenMegabytes}`, `${url}/api/v1/leads`]);
      assert.equal(result.exitCode, 0, `curl ${framing.join(' ')}: ${result.stderr}`);
      assertEnvelope(result.status, result.body);
    }
  });

  test('curl through a TCP relay (docker-proxy, a port-forward) gets the 413 envelope', async () => {
    const relay = await Relay.start(url);
    try {
      const result = await curl([
        '-H',
        'Expect:',
        '-H',
        `Authorization: Bearer ${key}`,
        '-H',
        'Content-Type: application/json',
        '--data-binary',
        `@${tenMegabytes}`,
        `${relay.url('http:')}/api/v1/leads`,
      ]);
      assert.equal(result.exitCode, 0, result.stderr);
      assertEnvelope(result.status, result.body);
    } finally {
      await relay.close();
    }
  });

  test("node's fetch with a streamed body gets the 413 envelope", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x78);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 10 * MiB) controller.close();
        else {
          sent += chunk.length;
          controller.enqueue(chunk);
        }
      },
    });
    const response = await fetch(`${url}/api/v1/leads`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    } as RequestInit);
    assertEnvelope(response.status, await response.text());
    assert.equal(response.headers.get('connection'), 'close');
  });

  test('a raw client that sends all of a 24 MiB body before it stops gets the 413, and a clean close, no reset', async () => {
    const outcome = await rawUpload(url, key, { bodyBytes: 24 * MiB });
    assert.equal(outcome.status, 413);
    assert.equal(outcome.body.error.code, 'payload_too_large');
    assert.match(outcome.headers, /^connection: close$/im);
    assert.equal(outcome.written, 24 * MiB, 'the whole body was sent');
    assert.equal(outcome.ended, 'close', 'both sides closed cleanly: no reset');
  });

  test("every service's prefix, the console's forms too: the gateway's 413 reaches a client still sending", async () => {
    // Each service's limit (requestBodyLimitBytes) is applied by the gateway before anything is passed on, so
    // none of these services runs here: the answer is the gateway's.
    const routes: Record<ServiceName, string> = {
      telephony: '/api/v1/phone/dnc',
      leads: '/api/v1/leads',
      recall: '/api/v1/knowledge/documents',
      mcp: '/api/mcp',
      webhooks: '/api/v1/webhooks',
      console: '/dashboard/sign-in',
    };
    for (const [service, path] of Object.entries(routes)) {
      const type = service === 'console' ? 'application/x-www-form-urlencoded' : 'application/json';
      const headers = ['-H', 'Expect:', '-H', `Authorization: Bearer ${key}`, '-H', `Content-Type: ${type}`];
      const result = await curl([...headers, '--data-binary', `@${tenMegabytes}`, `${url}${path}`]);
      assert.equal(result.exitCode, 0, `${service}: ${result.stderr}`);
      assertEnvelope(result.status, result.body);
    }
  });
});

describe('the discarding after a 413 is bounded', () => {
  let ctx: TestContext;
  let gateway: TestGateway;
  let url: string;
  let key: string;
  const limits = { LINGERING_TIME_MS: '3000', LINGERING_TIMEOUT_MS: '60000', LINGERING_MAX_BYTES: String(4 * MiB) };

  before(async () => {
    ctx = await createTestContext();
    gateway = await startGateway(ctx, { LEADS_URL: 'http://127.0.0.1:9', ...limits });
    url = await listening(gateway);
    ({ key } = await createOrgWithKey(gateway));
  });
  after(async () => {
    gateway.app.server.closeAllConnections();
    await gateway?.close();
    await ctx?.cleanup();
  });

  test('a client sending forever, fast, is closed once the byte bound is read', async () => {
    const outcome = await rawUpload(url, key, { forever: true });
    assert.equal(outcome.status, 413);
    assert.equal(outcome.body.error.code, 'payload_too_large');
    assert.ok(outcome.written > 4 * MiB, `the gateway read past the answer (${outcome.written} bytes sent)`);
    assert.ok(outcome.lingeredMs < 3000, `the byte bound closed it, not the time bound (${outcome.lingeredMs} ms)`);
  });

  test('a refusal before the body is read (a forged key: 401) is answered, then the body is discarded within the same bounds', async () => {
    const outcome = await rawUpload(url, 'vk_live_forged0000000000000000000000', { forever: true });
    assert.equal(outcome.status, 401);
    assert.equal(outcome.body.error.code, 'unknown_key');
    assert.match(outcome.headers, /\r\nconnection: close/i);
    assert.ok(outcome.written > 4 * MiB, `the gateway read past the answer (${outcome.written} bytes sent)`);
  });

  test('a client sending forever, slowly, is closed once the time bound has passed', async () => {
    const outcome = await rawUpload(url, key, { forever: true, intervalMs: 200 });
    assert.equal(outcome.status, 413);
    assert.ok(outcome.lingeredMs >= 2900, `lingered ${outcome.lingeredMs} ms`);
    assert.ok(outcome.written < 4 * MiB, `under the byte bound (${outcome.written} bytes sent)`);
  });
});
