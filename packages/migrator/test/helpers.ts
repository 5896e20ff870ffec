import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

const fixtureRoot = fileURLToPath(new URL('./fixtures/repo', import.meta.url));
const workspaceNodeModules = fileURLToPath(new URL('../../../node_modules', import.meta.url));
const bin = fileURLToPath(new URL('../bin/voice-db.mjs', import.meta.url));

/** The URL of a database on the test server that does not exist yet (`migrate` creates it). */
export function freshDatabaseUrl(): string {
  const url = new URL(serverUrl);
  url.pathname = `/voice_migrator_test_${randomBytes(6).toString('hex')}`;
  return url.toString();
}

export async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  await withClient(admin.toString(), (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Names of databases whose name starts with `prefix`: scratch and shadow databases must not be left behind. */
export async function databasesNamed(prefix: string): Promise<string[]> {
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const { rows } = await withClient(admin.toString(), (client) =>
    client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]),
  );
  return rows.map((row) => row.datname);
}

/**
 * A writable copy of the fixture repository (a gateway and service "x") in a temporary folder, with the
 * workspace's node_modules linked in so a client generated there can import @prisma/client.
 */
export function copyFixture(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'voice-migrator-'));
  cpSync(fixtureRoot, root, { recursive: true });
  symlinkSync(workspaceNodeModules, join(root, 'node_modules'), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `voice-db` bin as a separate process, the way npm scripts do. */
export function runCli(args: string[], options: { cwd: string; databaseUrl: string }): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd, env: { ...process.env, DATABASE_URL: options.databaseUrl } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
