import { relative } from 'node:path';
import { checkMigrations, createMigration, generateClients, migrateDatabase } from './commands.js';
import { SchemaEngineError } from './engine.js';
import { MigratorError } from './errors.js';

const usage = `usage: voice-db <command>

  migrate [service…]      apply pending migrations (all deployables, or those named)
  new <service> <name>    write a migration from the diff between the migrations and schema.prisma
  check [service…]        fail when a schema.prisma differs from what its migrations produce
  generate [service…]     generate the Prisma clients

Services: gateway, or a folder name under services/. DATABASE_URL names the database
(default postgresql://postgres@127.0.0.1:5432/voice); new and check only use its server.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  switch (command) {
    case 'migrate':
      await migrateDatabase({ services: args });
      return 0;
    case 'new': {
      const [service, name, ...rest] = args;
      if (!service || !name || rest.length > 0) break;
      const folder = await createMigration({ service, name });
      console.log(folder ? relative(process.cwd(), folder) : `${service}: no changes, nothing written`);
      return 0;
    }
    case 'check': {
      const results = await checkMigrations({ services: args });
      for (const result of results) {
        console.log(`${result.service}: ${result.ok ? 'migrations match schema.prisma' : result.problem}`);
        if (result.sql) console.log(result.sql.replace(/^/gm, '    '));
      }
      return results.every((result) => result.ok) ? 0 : 1;
    }
    case 'generate':
      await generateClients({ services: args });
      return 0;
    default:
      if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
        console.log(usage);
        return command === undefined ? 2 : 0;
      }
  }
  console.error(usage);
  return 2;
}

function describe(error: unknown): string {
  if (error instanceof MigratorError || error instanceof SchemaEngineError) return error.message;
  const { code, address, port } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  if (code === 'ECONNREFUSED') {
    return `Postgres is not reachable at ${address}:${port} (DATABASE_URL). Start it (for example docker compose up -d postgres) or point DATABASE_URL at a running server.`;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(`voice-db: ${describe(error)}`);
  process.exitCode = 1;
}
