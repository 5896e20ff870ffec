import { PrismaPg } from '@prisma/adapter-pg';

/**
 * The driver adapter every service gives its generated PrismaClient: the service's tables live in its own
 * Postgres schema (telephony, leads, …), selected here rather than in the connection string.
 */
export function prismaAdapter(databaseUrl: string, schema: string, options: { maxConnections?: number } = {}): PrismaPg {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  return new PrismaPg(
    // The search path makes raw SQL ($queryRaw, $executeRaw) land in the same schema as model queries.
    { connectionString: databaseUrl, max: options.maxConnections ?? 10, options: `-c search_path=${schema}` },
    { schema },
  );
}
