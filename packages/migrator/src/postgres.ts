import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';

export const defaultDatabaseUrl = 'postgresql://postgres@127.0.0.1:5432/voice';

/** Postgres SQLSTATEs we expect and tolerate. */
const invalidCatalogName = '3D000';
const duplicateDatabase = '42P04';
const duplicateSchema = '42P06';
const uniqueViolation = '23505';

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The same server, another database. pg ignores a `database` option next to a `connectionString`, so
 * the URL itself is rewritten.
 */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

export function databaseName(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
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

/** Creates the database when it is missing; another process creating it at the same moment is fine. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  try {
    await withClient(databaseUrl, async () => {});
    return;
  } catch (error) {
    if (sqlState(error) !== invalidCatalogName) throw error;
  }
  await withClient(withDatabase(databaseUrl, 'postgres'), async (client) => {
    // A concurrent creator shows up as duplicate_database, or as a unique violation on the catalog when
    // both got past the existence check.
    await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName(databaseUrl))}`).catch((error: unknown) => {
      const state = sqlState(error);
      if (state !== duplicateDatabase && state !== uniqueViolation) throw error;
    });
  });
}

export async function ensureSchema(client: pg.Client, schema: string): Promise<void> {
  // Two concurrent IF NOT EXISTS can still collide on the catalog's unique index.
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`).catch((error: unknown) => {
    const state = sqlState(error);
    if (state !== duplicateSchema && state !== uniqueViolation) throw error;
  });
}

/** A throwaway database on the server of `databaseUrl`, for shadow work. Drop it with `dropDatabase`. */
export async function createScratchDatabase(databaseUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withClient(withDatabase(databaseUrl, 'postgres'), (client) => client.query(`CREATE DATABASE ${quoteIdentifier(name)}`));
  return withDatabase(databaseUrl, name);
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  // FORCE: a connection the engine forgot to close must not keep the database alive.
  await withClient(withDatabase(databaseUrl, 'postgres'), (client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseName(databaseUrl))} WITH (FORCE)`),
  );
}

/**
 * adapter-pg 7.10 cannot map Postgres' internal single-byte `"char"` type (OID 18), which the schema
 * describer reads from pg_catalog ("Column type 'char' could not be deserialized"). This client reports
 * such columns as text (OID 25) before pg and the adapter look at them; the values are one-letter strings.
 */
class CharAsTextClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.connection.on('rowDescription', (message: { fields: Array<{ dataTypeID: number }> }) => {
      for (const field of message.fields) if (field.dataTypeID === 18) field.dataTypeID = 25;
    });
  }
}

/**
 * The driver adapter factory the schema engine runs on: adapter-pg scoped to one Postgres schema, with
 * the workarounds its 7.10 release needs when the schema engine (not the query client) drives it.
 */
export class SchemaScopedPg implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres';
  readonly adapterName = '@prisma/adapter-pg';
  private readonly open = new Set<SqlDriverAdapter>();
  private mainPool: pg.Pool | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly schema: string,
  ) {}

  async connect(): Promise<SqlDriverAdapter> {
    const { adapter, pool } = await this.openAdapter(this.databaseUrl);
    this.mainPool = pool;
    return adapter;
  }

  /**
   * Runs SQL in the engine's own session (its pool has one connection), e.g. to take Prisma's advisory
   * lock around several engine calls: the engine's own lock calls then re-enter it instead of waiting.
   */
  async query(sql: string): Promise<void> {
    if (!this.mainPool) throw new Error('the schema engine has not connected yet');
    await this.mainPool.query(sql);
  }

  /**
   * adapter-pg's own shadow database drops the database before closing the pool that is connected to it
   * ("being accessed by other users") and ignores our schema. Ours creates the database and the schema,
   * and on dispose closes the pool first, then drops with FORCE.
   */
  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const shadowUrl = await createScratchDatabase(this.databaseUrl, 'voice_db_shadow');
    try {
      await withClient(shadowUrl, (client) => ensureSchema(client, this.schema));
      return (await this.openAdapter(shadowUrl, () => dropDatabase(shadowUrl))).adapter;
    } catch (error) {
      await dropDatabase(shadowUrl);
      throw error;
    }
  }

  /** Closes every adapter the engine opened and did not dispose (it never disposes the main one). */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((adapter) => adapter.dispose()));
  }

  private async openAdapter(databaseUrl: string, afterClose?: () => Promise<void>): Promise<{ adapter: SqlDriverAdapter; pool: pg.Pool }> {
    const config: pg.PoolConfig = {
      connectionString: databaseUrl,
      Client: CharAsTextClient,
      // Migration SQL names tables without a schema, as Prisma writes it: the search path places them.
      options: `-c search_path=${quoteIdentifier(this.schema)}`,
      // One session: Prisma's advisory lock is session-scoped, so lock, migration and unlock must share
      // a connection, and that connection must not be closed for idling while a long migration runs.
      max: 1,
      idleTimeoutMillis: 0,
    };
    const inner = await new PrismaPg(config, { schema: this.schema }).connect();
    let closed: Promise<void> | undefined;
    const adapter: SqlDriverAdapter = {
      provider: inner.provider,
      adapterName: inner.adapterName,
      queryRaw: (query) => inner.queryRaw(query),
      executeRaw: (query) => inner.executeRaw(query),
      startTransaction: (isolationLevel) => inner.startTransaction(isolationLevel),
      getConnectionInfo: () => inner.getConnectionInfo(),
      // adapter-pg splits scripts on ";", which cuts `$$ … ; … $$` function bodies apart and leaves a
      // failed migration half applied. Without parameters pg sends the text with the simple query
      // protocol: all statements in one implicit transaction, as the native engine does.
      executeScript: async (script) => {
        await inner.executeRaw({ sql: script, args: [], argTypes: [] });
      },
      dispose: () => {
        closed ??= (async () => {
          this.open.delete(adapter);
          await inner.dispose();
          await afterClose?.();
        })();
        return closed;
      },
    };
    this.open.add(adapter);
    return { adapter, pool: inner.underlyingDriver() };
  }
}
