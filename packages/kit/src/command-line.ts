import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * The operator CLIs' conventions (`npm run -s admin -- …`): JSON on stdout; an error as `{"error": {code,
 * message}}` on stderr, exit code 1, or 2 for a usage mistake (with the usage text).
 */

/** A usage mistake: exit code 2, with the usage text. */
export class UsageError extends Error {}

export function exitWithError(code: string, message: string, exitCode: number): never {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.exit(exitCode);
}

/** The command line's positionals and options; one it cannot parse ends the process as a usage mistake. */
export function parseCommandLine<O extends NonNullable<ParseArgsConfig['options']>>(
  options: O,
  usage: string,
): ReturnType<typeof parseArgs<{ allowPositionals: true; options: O }>> {
  try {
    return parseArgs<{ allowPositionals: true; options: O }>({ allowPositionals: true, options });
  } catch (error) {
    return exitWithError('invalid_request', `${(error as Error).message}\n${usage}`, 2);
  }
}
