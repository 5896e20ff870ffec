import { PrismaPg } from '@prisma/adapter-pg';
import type { PoolConfig } from 'pg';

/**
 * Connection settings for one service's Postgres schema (telephony, leads, …), selected here rather than in
 * the connection string: the search path makes raw SQL land in the same schema as model queries.
 */
export function schemaPoolConfig(databaseUrl: string, schema: string, options: { maxConnections?: number } = {}): PoolConfig {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  return { connectionString: databaseUrl, max: options.maxConnections ?? 10, options: `-c search_path=${schema}` };
}

/** The driver adapter every service gives its generated PrismaClient. */
export function prismaAdapter(databaseUrl: string, schema: string, options: { maxConnections?: number } = {}): PrismaPg {
  return new PrismaPg(schemaPoolConfig(databaseUrl, schema, options), { schema });
}
