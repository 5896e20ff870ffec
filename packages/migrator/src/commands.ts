import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import {
  type Deployable,
  findRepoRoot,
  lockfileContent,
  lockfileName,
  readMigrations,
  readSchemaFiles,
  selectDeployables,
} from './deployables.js';
import { type Engine, type MigrationList, noFilter, openEngine } from './engine.js';
import { MigratorError } from './errors.js';
import {
  createScratchDatabase,
  defaultDatabaseUrl,
  dropDatabase,
  ensureDatabase,
  ensureSchema,
  SchemaScopedPg,
  withClient,
  withDatabase,
} from './postgres.js';

export interface CommonOptions {
  /** Defaults to DATABASE_URL, then postgresql://postgres@127.0.0.1:5432/voice. */
  databaseUrl?: string;
  /** The repository root; defaults to the one above the current directory. */
  rootDir?: string;
  /** Deployable names (`gateway`, `leads`, …); all when empty. */
  services?: readonly string[];
  /** No progress lines on stdout. */
  quiet?: boolean;
}

function resolveOptions(options: CommonOptions) {
  return {
    databaseUrl: options.databaseUrl ?? process.env.DATABASE_URL ?? defaultDatabaseUrl,
    rootDir: options.rootDir ?? findRepoRoot(),
    services: options.services ?? [],
    say: options.quiet ? () => {} : (line: string) => console.log(line),
  };
}

/** Runs `work` with a schema engine connected to `databaseUrl`, scoped to the deployable's Postgres schema. */
async function withEngine<T>(
  databaseUrl: string,
  deployable: Deployable,
  work: (engine: Engine, connection: SchemaScopedPg) => Promise<T>,
): Promise<T> {
  const factory = new SchemaScopedPg(databaseUrl, deployable.name);
  try {
    const engine = await openEngine(factory, readSchemaFiles(deployable));
    try {
      return await work(engine, factory);
    } finally {
      engine.close();
    }
  } finally {
    await factory.close();
  }
}

/** A throwaway database for `new`, which must not touch a real one. */
async function withScratchDatabase<T>(databaseUrl: string, work: (scratchUrl: string) => Promise<T>): Promise<T> {
  const scratchUrl = await createScratchDatabase(databaseUrl, 'voice_db_scratch');
  try {
    return await work(scratchUrl);
  } finally {
    await dropDatabase(scratchUrl);
  }
}

export interface MigrateResult {
  service: string;
  /** Migration folder names applied by this run, in order; empty when the schema was up to date. */
  applied: string[];
}

/** The key of Prisma's migration advisory lock (the same for every schema in a database). */
const prismaMigrationLock = 72707369;

/**
 * Applies every pending migration of every deployable (or those named), each in its own Postgres schema,
 * creating the database and the schemas as needed. Safe to run from several processes at once.
 */
export async function migrateDatabase(options: CommonOptions = {}): Promise<MigrateResult[]> {
  const { databaseUrl, rootDir, services, say } = resolveOptions(options);
  await ensureDatabase(databaseUrl);
  const results: MigrateResult[] = [];
  for (const deployable of selectDeployables(rootDir, services)) {
    const migrations = readMigrations(deployable);
    if (migrations.migrationDirectories.length === 0) {
      say(`${deployable.name}: no migrations yet`);
      results.push({ service: deployable.name, applied: [] });
      continue;
    }
    const applied = await migrateDeployable(databaseUrl, deployable, migrations);
    say(`${deployable.name}: ${applied.length > 0 ? `applied ${applied.length} (${applied.join(', ')})` : 'up to date'}`);
    results.push({ service: deployable.name, applied });
  }
  return results;
}

async function migrateDeployable(databaseUrl: string, deployable: Deployable, migrations: MigrationList): Promise<string[]> {
  await withClient(databaseUrl, (client) => ensureSchema(client, deployable.name));
  return withEngine(databaseUrl, deployable, async (engine, connection) => {
    // The checks below must see a settled history: another process may be applying a migration right
    // now (its row looks failed until it finishes). So hold Prisma's lock across checks and apply; the
    // engine takes the same lock in the same session, which re-enters it. This wait has no timeout,
    // unlike the engine's own 10 s: a long migration in another process is no error.
    await connection.query(`SELECT pg_advisory_lock(${prismaMigrationLock})`);
    try {
      const history = await engine.call('diagnoseMigrationHistory', {
        migrationsList: migrations,
        optInToShadowDatabase: false,
        filters: noFilter,
      });
      const table = `"${deployable.name}"._prisma_migrations`;
      if (history.failedMigrationNames.length > 0) {
        throw new MigratorError(
          `${deployable.name}: migration ${history.failedMigrationNames.join(', ')} failed earlier (recorded in ${table}); ` +
            'nothing was applied. Repair the database by hand, then mark it rolled back ' +
            `(UPDATE ${table} SET rolled_back_at = now() WHERE migration_name = '…') and run again.`,
        );
      }
      if (history.editedMigrationNames.length > 0) {
        throw new MigratorError(
          `${deployable.name}: migration ${history.editedMigrationNames.join(', ')} was edited after it was applied ` +
            `(its checksum differs from ${table}); nothing was applied. Restore the applied file and put the ` +
            `change in a new migration: npm run db:new -- ${deployable.name} <name>`,
        );
      }
      const { appliedMigrationNames } = await engine.call('applyMigrations', { migrationsList: migrations, filters: noFilter });
      return appliedMigrationNames;
    } finally {
      await connection.query(`SELECT pg_advisory_unlock(${prismaMigrationLock})`);
    }
  });
}

export interface NewMigrationOptions extends Omit<CommonOptions, 'services'> {
  service: string;
  /** Letters, digits and underscores; the folder becomes `<UTC timestamp>_<name>`. */
  name: string;
}

/**
 * Writes the migration that takes the deployable's migrations to its schema.prisma, and returns its
 * folder; undefined when they already match (nothing is written then).
 */
export async function createMigration(options: NewMigrationOptions): Promise<string | undefined> {
  const { databaseUrl, rootDir } = resolveOptions(options);
  if (!/^[A-Za-z0-9_]{1,100}$/.test(options.name)) throw new MigratorError(`migration name "${options.name}": use letters, digits and _`);
  const [deployable] = selectDeployables(rootDir, [options.service]);
  if (!deployable) throw new MigratorError(`unknown service ${options.service}`);
  const migrations = readMigrations(deployable);
  const schemaFiles = readSchemaFiles(deployable);
  const created = await withScratchDatabase(databaseUrl, async (scratchUrl) => {
    await withClient(scratchUrl, (client) => ensureSchema(client, deployable.name));
    return withEngine(scratchUrl, deployable, async (engine) => {
      // As `prisma migrate dev` does: bring a database up to the history, let the diagnosis compute the
      // history's schema in a shadow database (the wasm engine caches it; createMigration cannot build
      // it itself), then diff that schema against schema.prisma.
      if (migrations.migrationDirectories.length > 0)
        await engine.call('applyMigrations', { migrationsList: migrations, filters: noFilter });
      await engine.call('devDiagnostic', { migrationsList: migrations, filters: noFilter });
      return engine.call('createMigration', {
        draft: false,
        migrationName: options.name,
        migrationsList: migrations,
        schema: { files: schemaFiles },
        filters: noFilter,
      });
    });
  });
  if (created.migrationScript === null) return undefined;
  const folder = join(deployable.migrationsDir, created.generatedMigrationName);
  if (existsSync(folder)) throw new MigratorError(`${folder} already exists`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `migration.${created.extension}`), created.migrationScript);
  if (migrations.lockfile.content === null) writeFileSync(join(deployable.migrationsDir, lockfileName), lockfileContent);
  return folder;
}

export interface CheckResult {
  service: string;
  ok: boolean;
  /** What is wrong, when not ok. */
  problem?: string;
  /** The SQL that would bring the migrations to schema.prisma, when they differ. */
  sql?: string;
}

/** Compares each deployable's schema.prisma with what its migrations produce (in shadow databases). */
export async function checkMigrations(options: CommonOptions = {}): Promise<CheckResult[]> {
  const { databaseUrl, rootDir, services } = resolveOptions(options);
  // A diff from migrations reads only shadow databases; the engine still opens a main connection, and
  // the server's maintenance database is one that always exists and is left untouched.
  const mainUrl = withDatabase(databaseUrl, 'postgres');
  return Promise.all(selectDeployables(rootDir, services).map((deployable) => checkDeployable(mainUrl, deployable)));
}

async function checkDeployable(mainUrl: string, deployable: Deployable): Promise<CheckResult> {
  const migrations = readMigrations(deployable);
  if (migrations.migrationDirectories.length === 0) {
    return {
      service: deployable.name,
      ok: false,
      problem: `schema.prisma has no migrations; create the first: npm run db:new -- ${deployable.name} init`,
    };
  }
  const diff = await withEngine(mainUrl, deployable, (engine) =>
    engine.call('diff', {
      from: { tag: 'migrations', ...migrations },
      to: { tag: 'schemaDatamodel', files: readSchemaFiles(deployable) },
      script: true,
      exitCode: true,
      filters: noFilter,
    }),
  );
  // With `exitCode: true` the engine answers 2 when the diff is not empty.
  if (diff.exitCode === 0) return { service: deployable.name, ok: true };
  return {
    service: deployable.name,
    ok: false,
    problem: `schema.prisma differs from its migrations; create one: npm run db:new -- ${deployable.name} <name>`,
    sql: diff.stdout ?? '',
  };
}

export interface GenerateResult {
  service: string;
  /** Where the client was written, as Prisma reports it. */
  output: string;
}

/**
 * Runs `prisma generate` for each deployable. Generation needs no schema engine, but the CLI downloads
 * one (from a host these machines cannot reach) unless PRISMA_SCHEMA_ENGINE_BINARY names an existing
 * file; any will do. Prisma 7 needs no prisma.config.ts for this: the schema path is given, no URL is.
 */
export async function generateClients(options: Omit<CommonOptions, 'databaseUrl'> = {}): Promise<GenerateResult[]> {
  const { rootDir, services, say } = resolveOptions(options);
  const prismaCli = createRequire(import.meta.url).resolve('prisma/build/index.js');
  const env = {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  };
  const deployables = selectDeployables(rootDir, services);
  const outputs = await Promise.all(
    deployables.map((deployable) => run(process.execPath, [prismaCli, 'generate', '--schema', deployable.schemaPath], deployable.dir, env)),
  );
  return deployables.map((deployable, index) => {
    const output = outputs[index] ?? '';
    const target = /Generated Prisma Client .* to (\S+)/.exec(output)?.[1] ?? '?';
    say(`${deployable.name}: generated ${join(relative(rootDir, deployable.dir), target)}`);
    return { service: deployable.name, output: join(deployable.dir, target) };
  });
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new MigratorError(`${args.join(' ')} (in ${cwd}) exited with ${code}:\n${output}`));
    });
  });
}
