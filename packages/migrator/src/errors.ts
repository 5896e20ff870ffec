/** A problem the user must fix (not a bug in voice-db): the CLI prints its message without a stack. */
export class MigratorError extends Error {
  override name = 'MigratorError';
}
