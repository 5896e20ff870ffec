import { PrismaPg } from '@prisma/adapter-pg';

/**
 * The driver adapter every service gives its generated PrismaClient: the service's tables live in its own
 * Postgres schema (telephony, leads, …), selected here rather than in the connection string.
 */
export function prismaAdapter(databaseUrl: string, schema: string, options: { maxConnections?: number } = {}): PrismaPg {
  return new PrismaPg({ connectionString: databaseUrl, max: options.maxConnections ?? 10 }, { schema });
}
