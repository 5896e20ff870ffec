import { PrismaPg } from '@prisma/adapter-pg';
import type { PoolConfig } from 'pg';

export interface SchemaPoolOptions {
  maxConnections?: number;
  /** Further settings of each session, e.g. `{ jit: 'off' }` (names and values of letters, digits and `_.`). */
  settings?: Record<string, string>;
}

/**
 * Connection settings for one service's Postgres schema (telephony, leads, …), selected here rather than in
 * the connection string: the search path makes raw SQL land in the same schema as model queries.
 */
export function schemaPoolConfig(databaseUrl: string, schema: string, options: SchemaPoolOptions = {}): PoolConfig {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const settings = Object.entries(options.settings ?? {}).map(([name, value]) => {
    if (!/^[a-z_][a-z0-9_.]*$/.test(name) || !/^[A-Za-z0-9_.]+$/.test(value)) throw new Error(`invalid setting ${name}=${value}`);
    return ` -c ${name}=${value}`;
  });
  return { connectionString: databaseUrl, max: options.maxConnections ?? 10, options: `-c search_path=${schema}${settings.join('')}` };
}

/** The driver adapter every service gives its generated PrismaClient. */
export function prismaAdapter(databaseUrl: string, schema: string, options: SchemaPoolOptions = {}): PrismaPg {
  return new PrismaPg(schemaPoolConfig(databaseUrl, schema, options), { schema });
}
