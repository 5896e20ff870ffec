import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listDeployables, MigratorError, migrateDatabase } from '../src/index.js';
import { copyFixture, dropDatabase, freshDatabaseUrl, runCli, withClient } from './helpers.js';

const gatewayInit = '20261126000041_init';
const xInit = '20261126000045_init';
const xTrigger = '20261126000100_trim_thing_name';

async function appliedMigrations(databaseUrl: string, schema: string) {
  const { rows } = await withClient(databaseUrl, (client) =>
    client.query<{ migration_name: string; finished: boolean }>(
      `SELECT migration_name, finished_at IS NOT NULL AS finished FROM "${schema}"._prisma_migrations ORDER BY started_at`,
    ),
  );
  return rows;
}

describe('migrate', () => {
  const fixture = copyFixture();
  const databases: string[] = [];
  const newDatabase = () => {
    const url = freshDatabaseUrl();
    databases.push(url);
    return url;
  };

  after(async () => {
    await Promise.all(databases.map((url) => dropDatabase(url)));
    fixture.remove();
  });

  test('finds the gateway and the services that have a schema.prisma', () => {
    assert.deepEqual(
      listDeployables(fixture.root).map((deployable) => deployable.name),
      ['gateway', 'x'],
    );
  });

  describe('on a database that does not exist yet', () => {
    const databaseUrl = newDatabase();
    let first: Awaited<ReturnType<typeof migrateDatabase>>;
    before(async () => {
      first = await migrateDatabase({ databaseUrl, rootDir: fixture.root, quiet: true });
    });

    test('creates the database and applies every migration, each service in its own schema', async () => {
      assert.deepEqual(first, [
        { service: 'gateway', applied: [gatewayInit] },
        { service: 'x', applied: [xInit, xTrigger] },
      ]);
      const tables = await withClient(databaseUrl, (client) =>
        client.query<{ schema: string; name: string }>(
          `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
           WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
        ),
      );
      assert.deepEqual(
        tables.rows.map((row) => `${row.schema}.${row.name}`),
        ['gateway.Organization', 'gateway._prisma_migrations', 'x.Part', 'x.Thing', 'x._prisma_migrations'],
      );
      assert.deepEqual(await appliedMigrations(databaseUrl, 'gateway'), [{ migration_name: gatewayInit, finished: true }]);
    });

    test('applies a $$ … ; … $$ function body whole', async () => {
      const { rows } = await withClient(databaseUrl, (client) =>
        client.query<{ name: string }>(`INSERT INTO x."Thing" (id, name) VALUES ('t1', '  padded  ') RETURNING name`),
      );
      assert.equal(rows[0]?.name, 'padded');
    });

    test('a second run applies nothing', async () => {
      const second = await migrateDatabase({ databaseUrl, rootDir: fixture.root, quiet: true });
      assert.deepEqual(second, [
        { service: 'gateway', applied: [] },
        { service: 'x', applied: [] },
      ]);
      assert.equal((await appliedMigrations(databaseUrl, 'x')).length, 2);
    });

    test('migrates only the services named', async () => {
      const result = await migrateDatabase({ databaseUrl, rootDir: fixture.root, services: ['x'], quiet: true });
      assert.deepEqual(result, [{ service: 'x', applied: [] }]);
      await assert.rejects(
        migrateDatabase({ databaseUrl, rootDir: fixture.root, services: ['nope'], quiet: true }),
        /no prisma\/schema\.prisma for nope/,
      );
    });
  });

  test('two processes migrating one fresh database at once apply each migration once', async () => {
    const databaseUrl = newDatabase();
    const runs = await Promise.all([1, 2].map(() => runCli(['migrate'], { cwd: fixture.root, databaseUrl })));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const appliedCount = (output: string) => [...output.matchAll(/applied (\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    assert.equal(appliedCount(runs[0]?.stdout ?? '') + appliedCount(runs[1]?.stdout ?? ''), 3, runs.map((run) => run.stdout).join('\n'));
    assert.deepEqual(await appliedMigrations(databaseUrl, 'gateway'), [{ migration_name: gatewayInit, finished: true }]);
    assert.deepEqual(await appliedMigrations(databaseUrl, 'x'), [
      { migration_name: xInit, finished: true },
      { migration_name: xTrigger, finished: true },
    ]);
  });

  test('a process arriving while another is mid-migration waits for it instead of seeing a failure', async (t) => {
    const own = copyFixture();
    const slow = join(own.root, 'services', 'x', 'prisma', 'migrations', '20261126000200_slow');
    mkdirSync(slow);
    writeFileSync(join(slow, 'migration.sql'), 'CREATE TABLE "Slow" (id int);\nSELECT pg_sleep(2);\n');
    const databaseUrl = newDatabase();
    t.after(async () => {
      own.remove();
    });
    const first = runCli(['migrate'], { cwd: own.root, databaseUrl });
    // Until the first process finishes, its row for the slow migration has no finished_at.
    for (let unfinished = false; !unfinished; await new Promise((resolve) => setTimeout(resolve, 50))) {
      unfinished = await withClient(databaseUrl, async (client) => {
        const exists = await client.query(`SELECT to_regclass('x._prisma_migrations') IS NOT NULL AS present`);
        if (!exists.rows[0]?.present) return false;
        const { rowCount } = await client.query(
          `SELECT 1 FROM x._prisma_migrations WHERE migration_name = '20261126000200_slow' AND finished_at IS NULL`,
        );
        return rowCount === 1;
      }).catch(() => false);
    }
    // Only x: the gateway step would already wait on the lock that the first process holds.
    const second = await runCli(['migrate', 'x'], { cwd: own.root, databaseUrl });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'x: up to date\n');
    assert.equal((await first).code, 0);
    assert.equal((await appliedMigrations(databaseUrl, 'x')).length, 3);
  });

  test('the CLI prints one line per service', async () => {
    const databaseUrl = newDatabase();
    const first = await runCli(['migrate'], { cwd: fixture.root, databaseUrl });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, `gateway: applied 1 (${gatewayInit})\nx: applied 2 (${xInit}, ${xTrigger})\n`);
    const second = await runCli(['migrate', 'x'], { cwd: fixture.root, databaseUrl });
    assert.equal(second.stdout, 'x: up to date\n');
  });

  describe('refuses', () => {
    test('a migration edited after it was applied, and applies nothing', async (t) => {
      const own = copyFixture();
      const databaseUrl = newDatabase();
      t.after(async () => {
        own.remove();
      });
      await migrateDatabase({ databaseUrl, rootDir: own.root, quiet: true });
      const migrations = join(own.root, 'services', 'x', 'prisma', 'migrations');
      appendFileSync(join(migrations, xInit, 'migration.sql'), '\n-- edited afterwards\n');
      mkdirSync(join(migrations, '20261126000200_more'));
      writeFileSync(join(migrations, '20261126000200_more', 'migration.sql'), 'CREATE TABLE "More" (id int);\n');
      await assert.rejects(
        migrateDatabase({ databaseUrl, rootDir: own.root, quiet: true }),
        (error: unknown) =>
          error instanceof MigratorError && /x: migration 20261126000045_init was edited after it was applied/.test(error.message),
      );
      assert.equal((await appliedMigrations(databaseUrl, 'x')).length, 2);
      const run = await runCli(['migrate'], { cwd: own.root, databaseUrl });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^voice-db: x: migration 20261126000045_init was edited after it was applied/);
    });

    test('to go on after a failed migration, which left nothing behind', async (t) => {
      const own = copyFixture();
      const databaseUrl = newDatabase();
      t.after(async () => {
        own.remove();
      });
      const migrations = join(own.root, 'services', 'x', 'prisma', 'migrations');
      mkdirSync(join(migrations, '20261126000200_broken'));
      writeFileSync(
        join(migrations, '20261126000200_broken', 'migration.sql'),
        'CREATE TABLE "Half" (id int);\nSELECT * FROM "DoesNotExist";\n',
      );
      await assert.rejects(migrateDatabase({ databaseUrl, rootDir: own.root, quiet: true }), /DoesNotExist/);
      // One implicit transaction: the statement before the failing one is rolled back too.
      const half = await withClient(databaseUrl, (client) => client.query(`SELECT to_regclass('x."Half"') AS half`));
      assert.equal(half.rows[0]?.half, null);
      await assert.rejects(
        migrateDatabase({ databaseUrl, rootDir: own.root, quiet: true }),
        (error: unknown) => error instanceof MigratorError && /x: migration 20261126000200_broken failed earlier/.test(error.message),
      );
    });
  });
});
