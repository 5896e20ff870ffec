export {
  type CheckResult,
  type CommonOptions,
  checkMigrations,
  createMigration,
  type GenerateResult,
  generateClients,
  type MigrateResult,
  migrateDatabase,
  type NewMigrationOptions,
} from './commands.js';
export { type Deployable, findRepoRoot, listDeployables } from './deployables.js';
export { SchemaEngineError } from './engine.js';
export { MigratorError } from './errors.js';
export { defaultDatabaseUrl } from './postgres.js';
