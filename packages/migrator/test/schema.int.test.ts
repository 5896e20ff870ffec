import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkMigrations, createMigration, migrateDatabase } from '../src/index.js';
import { copyFixture, databasesNamed, dropDatabase, freshDatabaseUrl, runCli, serverUrl } from './helpers.js';

describe('new and check', () => {
  const fixture = copyFixture();
  const databaseUrl = freshDatabaseUrl();
  const xSchema = join(fixture.root, 'services', 'x', 'prisma', 'schema.prisma');
  const xMigrations = join(fixture.root, 'services', 'x', 'prisma', 'migrations');

  after(async () => {
    await dropDatabase(databaseUrl);
    fixture.remove();
  });

  test('check passes when every schema.prisma matches its migrations', async () => {
    const run = await runCli(['check'], { cwd: fixture.root, databaseUrl: serverUrl });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'gateway: migrations match schema.prisma\nx: migrations match schema.prisma\n');
  });

  test('check fails and prints the SQL when schema.prisma has moved on', async () => {
    writeFileSync(xSchema, readFileSync(xSchema, 'utf8').replace('  detail Json?\n', '  detail Json?\n  note   String?\n'));
    const run = await runCli(['check'], { cwd: fixture.root, databaseUrl: serverUrl });
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^gateway: migrations match schema\.prisma\nx: schema\.prisma differs from its migrations/);
    assert.match(run.stdout, /ALTER TABLE "Thing" ADD COLUMN\s+"note" TEXT;/);
  });

  test('new writes the migration, after which check passes and migrate applies it', async () => {
    const before = readdirSync(xMigrations);
    const run = await runCli(['new', 'x', 'add_note'], { cwd: fixture.root, databaseUrl: serverUrl });
    assert.equal(run.code, 0, run.stderr);
    const folder = run.stdout.trim();
    assert.match(folder, /^services\/x\/prisma\/migrations\/\d{14}_add_note$/);
    assert.deepEqual(readdirSync(xMigrations).length, before.length + 1);
    assert.match(readFileSync(join(fixture.root, folder, 'migration.sql'), 'utf8'), /ALTER TABLE "Thing" ADD COLUMN\s+"note" TEXT;/);

    assert.deepEqual(await checkMigrations({ rootDir: fixture.root, databaseUrl: serverUrl }), [
      { service: 'gateway', ok: true },
      { service: 'x', ok: true },
    ]);
    const [, x] = await migrateDatabase({ databaseUrl, rootDir: fixture.root, quiet: true });
    assert.equal(x?.applied.at(-1), folder.split('/').at(-1));
  });

  test('new writes nothing when there is no change', async () => {
    const before = readdirSync(xMigrations);
    assert.equal(await createMigration({ service: 'x', name: 'nothing', rootDir: fixture.root, databaseUrl: serverUrl }), undefined);
    const run = await runCli(['new', 'gateway', 'nothing'], { cwd: fixture.root, databaseUrl: serverUrl });
    assert.equal(run.stdout, 'gateway: no changes, nothing written\n');
    assert.deepEqual(readdirSync(xMigrations), before);
  });

  test('check fails for a schema.prisma without migrations; new writes the first one and the lock file', async () => {
    const prismaDir = join(fixture.root, 'services', 'y', 'prisma');
    mkdirSync(prismaDir, { recursive: true });
    writeFileSync(
      join(prismaDir, 'schema.prisma'),
      'datasource db {\n  provider = "postgresql"\n}\n\nmodel Note {\n  id   Int    @id @default(autoincrement())\n  text String\n}\n',
    );
    const results = await checkMigrations({ rootDir: fixture.root, databaseUrl: serverUrl, services: ['y'] });
    assert.equal(results[0]?.ok, false);
    assert.match(results[0]?.problem ?? '', /no migrations/);

    const folder = await createMigration({ service: 'y', name: 'init', rootDir: fixture.root, databaseUrl: serverUrl });
    assert.ok(folder);
    assert.match(readFileSync(join(folder, 'migration.sql'), 'utf8'), /CREATE TABLE "Note"/);
    assert.match(readFileSync(join(prismaDir, 'migrations', 'migration_lock.toml'), 'utf8'), /provider = "postgresql"/);
    assert.deepEqual(await checkMigrations({ rootDir: fixture.root, databaseUrl: serverUrl, services: ['y'] }), [
      { service: 'y', ok: true },
    ]);
  });

  test('new refuses an unknown service or a bad name', async () => {
    await assert.rejects(
      createMigration({ service: 'nope', name: 'x', rootDir: fixture.root, databaseUrl: serverUrl }),
      /no prisma\/schema\.prisma for nope/,
    );
    await assert.rejects(
      createMigration({ service: 'x', name: 'two words', rootDir: fixture.root, databaseUrl: serverUrl }),
      /use letters, digits and _/,
    );
    assert.equal(existsSync(join(xMigrations, 'two words')), false);
  });

  test('leaves no scratch or shadow database behind', async () => {
    assert.deepEqual(await databasesNamed('voice_db_'), []);
  });
});
