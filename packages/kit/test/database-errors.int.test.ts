import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, testServerUrls } from '@voice/kit/testing';
import pg from 'pg';
import { isDatabaseUnavailable, toApiError } from '../src/errors.js';

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closed(server: Server): Promise<void> {
  await new Promise((resolve) => server.close(resolve));
}

// Real errors from pg, as a service sees them when Postgres goes away, mapped by the one function every
// error handler uses: 503 `unavailable` (with Retry-After), never 500 `internal`.
describe('database unavailable: real pg errors are 503, query errors stay what they are', () => {
  let database: { url: string; drop(): Promise<void> };
  before(async () => {
    database = await createTestDatabase(testServerUrls.postgres);
  });
  after(async () => database.drop());

  const expectUnavailable = (error: unknown) => {
    assert.equal(isDatabaseUnavailable(error), true, String(error));
    const apiError = toApiError(error);
    assert.deepEqual([apiError.code, apiError.status, apiError.headers['retry-after']], ['unavailable', 503, '1']);
  };

  test('a port that refuses connections (ECONNREFUSED)', async () => {
    const server = createServer();
    const port = await listening(server);
    await closed(server);
    const pool = new pg.Pool({ connectionString: `postgresql://postgres@127.0.0.1:${port}/voice` });
    expectUnavailable(await rejection(() => pool.query('SELECT 1')));
    await pool.end();
  });

  test('a server that accepts and drops the connection ("Connection terminated unexpectedly")', async () => {
    const server = createServer((socket) => socket.destroy());
    const port = await listening(server);
    const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/voice` });
    client.on('error', () => {});
    expectUnavailable(await rejection(() => client.connect()));
    await closed(server);
  });

  test('a pool that cannot get a connection in time (pg-pool timeout)', async () => {
    // A server that accepts and never answers: the pool's connection timeout fires.
    const held: Array<import('node:net').Socket> = [];
    const server = createServer((socket) => held.push(socket));
    const port = await listening(server);
    const pool = new pg.Pool({ connectionString: `postgresql://postgres@127.0.0.1:${port}/voice`, connectionTimeoutMillis: 200 });
    expectUnavailable(await rejection(() => pool.query('SELECT 1')));
    await pool.end().catch(() => {});
    for (const socket of held) socket.destroy();
    await closed(server);
  });

  test('a server that terminates the session (57P01, as on shutdown) and the queries after it', async () => {
    const client = new pg.Client({ connectionString: database.url });
    client.on('error', () => {});
    await client.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const running = rejection(() => client.query('SELECT pg_sleep(30)'));
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // Wait until the sleep is running, then end that backend as a server shutting down does.
    for (;;) {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'", [pid]);
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    const terminated = await running;
    assert.equal((terminated as { code?: string }).code, '57P01');
    expectUnavailable(terminated);
    expectUnavailable(await rejection(() => client.query('SELECT 1')));
  });

  test('a bad query or a constraint is not an outage', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const syntax = await rejection(() => client.query('SELEC 1'));
    assert.equal(isDatabaseUnavailable(syntax), false);
    assert.equal(toApiError(syntax).code, 'internal');
    await client.end();
  });
});
